// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../IPaymentRouter.sol";
import {Rlp} from "./Rlp.sol";
import {ReceiptTrie} from "./ReceiptTrie.sol";

/// @title ArrivalVerifier
/// @notice Proves, from the chain's own data, that a token moved `value` from `from` to `to` under `from`'s
///         ERC-3009 authorization `nonce`: a block header the chain itself vouches for, the transaction's receipt
///         in that header's receipt trie, and in the receipt the adjacent log pair FiatTokenV2_2's
///         _transferWithAuthorization (and _receiveWithAuthorization) emits from one call:
///         AuthorizationUsed(authorizer = from, nonce), then Transfer(from, to, value), both by the token.
/// @dev Stateless; the PaymentRouter deploys its own in its constructor and keeps it immutable, so no key can
///      swap it. A cancelled authorization emits AuthorizationCanceled and moves nothing, so it can never be
///      proven. Logs are in a receipt only when the call that emitted them did not revert.
contract ArrivalVerifier {
    /// @notice EIP-2935 block-hash history (the last 8191 blocks), where a chain has deployed it.
    address public constant HISTORY = 0x0000F90827F1C53a10cb7A02335B175320002935;
    /// @dev keccak256("AuthorizationUsed(address,bytes32)")
    bytes32 internal constant AUTHORIZATION_USED = keccak256("AuthorizationUsed(address,bytes32)");
    /// @dev keccak256("Transfer(address,address,uint256)")
    bytes32 internal constant TRANSFER = keccak256("Transfer(address,address,uint256)");

    /// @notice The value `token` moved from `from` to `to` under `from`'s authorization `nonce`, as proven by
    ///         `proof`; reverts with the failed check's error otherwise. Never returns 0.
    function verify(address token, address from, bytes32 nonce, address to, IPaymentRouter.ArrivalProof calldata proof)
        external
        view
        returns (uint256 value)
    {
        bytes calldata logs = _logs(proof);
        uint256 i = proof.logIndex;
        uint256 n = Rlp.count(logs);
        if (i >= n || n - i < 2) revert IPaymentRouter.LogIndexOutOfRange(i, n);
        _requireAuthorizationUsed(Rlp.at(logs, i), i, token, from, nonce);
        value = _transferValue(Rlp.at(logs, i + 1), i + 1, token, from, to);
    }

    /// @notice The hash of block `number` as the chain knows it: blockhash (the last 256 blocks), else the EIP-2935
    ///         history contract where it has code (the last 8191), else 0.
    function blockHash(uint256 number) public view returns (bytes32 hash) {
        hash = blockhash(number);
        if (hash != 0 || HISTORY.code.length == 0) return hash;
        (bool ok, bytes memory ret) = HISTORY.staticcall(abi.encode(number));
        if (ok && ret.length == 32) hash = abi.decode(ret, (bytes32));
    }

    /// @dev The logs list payload of the proven receipt: header authenticated by its block hash, receipt by the
    ///      header's receiptsRoot (item 5) under key rlp(txIndex), logs = receipt item 3.
    function _logs(IPaymentRouter.ArrivalProof calldata proof) private view returns (bytes calldata) {
        bytes calldata header = Rlp.list(proof.header);
        uint256 number = Rlp.toUint(Rlp.at(header, 8));
        bytes32 known = blockHash(number);
        if (known == 0) revert IPaymentRouter.BlockHashUnavailable(number);
        bytes32 got = keccak256(proof.header);
        if (got != known) revert IPaymentRouter.HeaderHashMismatch(number, known, got);
        bytes32 receiptsRoot = Rlp.toBytes32(Rlp.at(header, 5));
        bytes calldata receipt = ReceiptTrie.get(receiptsRoot, Rlp.encodeUint(proof.txIndex), proof.receiptProof);
        // EIP-2718: a typed receipt is its type byte (< 0x80) then the RLP list; a legacy one is the list itself.
        if (receipt.length != 0 && uint8(receipt[0]) < 0x80) receipt = receipt[1:];
        // [status, cumulativeGasUsed, logsBloom, logs, ...]: OP-stack deposit receipts append fields after logs.
        return Rlp.list(Rlp.at(Rlp.list(receipt), 3));
    }

    /// @dev Log `index` must be the token's AuthorizationUsed(authorizer = from, nonce).
    function _requireAuthorizationUsed(bytes calldata log, uint256 index, address token, address from, bytes32 nonce)
        private
        pure
    {
        (bytes calldata topics,) = _fields(log, index, token);
        if (
            Rlp.count(topics) != 3 || Rlp.toBytes32(Rlp.at(topics, 0)) != AUTHORIZATION_USED
                || Rlp.toBytes32(Rlp.at(topics, 1)) != _word(from) || Rlp.toBytes32(Rlp.at(topics, 2)) != nonce
        ) revert IPaymentRouter.NotAuthorizationUsed(index, from, nonce);
    }

    /// @dev Log `index` must be the token's Transfer(from, to, value > 0); returns value.
    function _transferValue(bytes calldata log, uint256 index, address token, address from, address to)
        private
        pure
        returns (uint256 value)
    {
        (bytes calldata topics, bytes calldata data) = _fields(log, index, token);
        if (
            Rlp.count(topics) != 3 || Rlp.toBytes32(Rlp.at(topics, 0)) != TRANSFER
                || Rlp.toBytes32(Rlp.at(topics, 1)) != _word(from) || Rlp.toBytes32(Rlp.at(topics, 2)) != _word(to)
                || data.length != 32
        ) revert IPaymentRouter.NotTransferTo(index, to);
        // data.length == 32, checked above.
        // forge-lint: disable-next-line(unsafe-typecast)
        value = uint256(bytes32(data));
        if (value == 0) revert IPaymentRouter.ZeroAmount();
    }

    /// @dev A log is [address, topics, data]: its topics list payload and data, once its emitter is `token`.
    function _fields(bytes calldata log, uint256 index, address token)
        private
        pure
        returns (bytes calldata topics, bytes calldata data)
    {
        bytes calldata fields = Rlp.list(log);
        address emitter = Rlp.toAddress(Rlp.at(fields, 0));
        if (emitter != token) revert IPaymentRouter.LogNotFromToken(index, emitter, token);
        topics = Rlp.list(Rlp.at(fields, 1));
        data = Rlp.str(Rlp.at(fields, 2));
    }

    function _word(address a) private pure returns (bytes32) {
        return bytes32(uint256(uint160(a)));
    }
}
