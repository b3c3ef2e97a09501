// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {RlpWriter} from "./RlpWriter.sol";
import {TrieBuilder} from "./TrieBuilder.sol";
import {Vm} from "./Vm.sol";

/// @notice Builds what the chain would hold for a block: receipts (EIP-2718 typed or legacy) carrying the logs a
///         transaction really emitted (recorded with vm.recordLogs), their receipt trie, and a header whose
///         receiptsRoot (item 5) is that trie's root and whose number is item 8. The test then makes the chain
///         vouch for the header with vm.setBlockhash.
library ArrivalProofs {
    bytes32 internal constant AUTHORIZATION_USED = keccak256("AuthorizationUsed(address,bytes32)");

    /// @dev A receipt [status = 1, cumulativeGasUsed, logsBloom, logs], prefixed by its type unless legacy (0).
    function receipt(Vm.Log[] memory logs, uint8 txType) internal pure returns (bytes memory) {
        bytes[] memory encoded = new bytes[](logs.length);
        for (uint256 i; i < logs.length; ++i) {
            encoded[i] = RlpWriter.log(logs[i].emitter, logs[i].topics, logs[i].data);
        }
        return receiptOf(encoded, txType, 21_000 * (logs.length + 1));
    }

    function receiptOf(bytes[] memory logs, uint8 txType, uint256 gas) internal pure returns (bytes memory) {
        bytes[] memory fields = new bytes[](4);
        fields[0] = RlpWriter.uint_(1);
        fields[1] = RlpWriter.uint_(gas);
        fields[2] = RlpWriter.bytes_(new bytes(256)); // the bloom is not read
        fields[3] = RlpWriter.list(logs);
        bytes memory body = RlpWriter.list(fields);
        return txType == 0 ? body : bytes.concat(bytes1(txType), body);
    }

    /// @dev Another transaction's receipt in the same block: one log of some other contract.
    function filler(uint256 i) internal pure returns (bytes memory) {
        bytes32[] memory topics = new bytes32[](1);
        topics[0] = keccak256(abi.encode("filler", i));
        bytes[] memory logs = new bytes[](1);
        logs[0] = RlpWriter.log(address(uint160(0xF111E5 + i)), topics, abi.encode(i));
        return receiptOf(logs, uint8(i % 3), 50_000 + i);
    }

    /// @dev A post-London header: only receiptsRoot (5) and number (8) are read; the rest makes it realistic.
    function header(bytes32 receiptsRoot, uint256 number) internal pure returns (bytes memory) {
        bytes[] memory h = new bytes[](16);
        h[0] = RlpWriter.bytes32_(keccak256(abi.encode("parent", number)));
        h[1] = RlpWriter.bytes32_(keccak256(hex"c0")); // ommersHash of no ommers
        h[2] = RlpWriter.address_(address(0xC0FFEE));
        h[3] = RlpWriter.bytes32_(keccak256(abi.encode("state", number)));
        h[4] = RlpWriter.bytes32_(keccak256(abi.encode("transactions", number)));
        h[5] = RlpWriter.bytes32_(receiptsRoot);
        h[6] = RlpWriter.bytes_(new bytes(256));
        h[7] = RlpWriter.uint_(0);
        h[8] = RlpWriter.uint_(number);
        h[9] = RlpWriter.uint_(30_000_000);
        h[10] = RlpWriter.uint_(1_000_000);
        h[11] = RlpWriter.uint_(1_700_000_000 + number);
        h[12] = RlpWriter.bytes_("");
        h[13] = RlpWriter.bytes32_(bytes32(0));
        h[14] = RlpWriter.bytes_(new bytes(8));
        h[15] = RlpWriter.uint_(7);
        return RlpWriter.list(h);
    }

    /// @dev Mines the block at the current height with a receipt carrying `logs` (a transaction's real logs, from
    ///      vm.getRecordedLogs) at `txIndex` among `count` receipts: rolls one block and makes the chain hold the
    ///      header's hash (vm.setBlockhash). Returns the proof of the first AuthorizationUsed log in `logs`.
    function mine(Vm vm, Vm.Log[] memory logs, uint256 txIndex, uint256 count)
        internal
        returns (IPaymentRouter.ArrivalProof memory proof)
    {
        bytes[] memory receipts = new bytes[](count);
        for (uint256 i; i < count; ++i) {
            receipts[i] = i == txIndex ? receipt(logs, 2) : filler(i);
        }
        uint256 number = block.number;
        bytes32 hash;
        (proof, hash) = prove(receipts, txIndex, number, authorizationUsedAt(logs));
        vm.roll(number + 1);
        vm.setBlockhash(number, hash);
    }

    /// @dev Index of the first AuthorizationUsed log in `logs` (0 if none).
    function authorizationUsedAt(Vm.Log[] memory logs) internal pure returns (uint256) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics.length != 0 && logs[i].topics[0] == AUTHORIZATION_USED) return i;
        }
        return 0;
    }

    /// @dev The proof of log `logIndex` of receipt `txIndex` among `receipts` in block `number`, and the hash
    ///      the chain must hold for that block.
    function prove(bytes[] memory receipts, uint256 txIndex, uint256 number, uint256 logIndex)
        internal
        pure
        returns (IPaymentRouter.ArrivalProof memory proof, bytes32 blockHash)
    {
        bytes[] memory keys = new bytes[](receipts.length);
        for (uint256 i; i < receipts.length; ++i) {
            keys[i] = RlpWriter.uint_(i);
        }
        (bytes32 root, bytes[] memory nodes) = TrieBuilder.build(keys, receipts, txIndex);
        proof = IPaymentRouter.ArrivalProof(header(root, number), txIndex, nodes, logIndex);
        blockHash = keccak256(proof.header);
    }
}
