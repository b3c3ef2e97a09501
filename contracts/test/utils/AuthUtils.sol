// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {IFiatTokenV2_2} from "./CircleUSDC.sol";
import {SigUtils} from "./SigUtils.sol";
import {Vm} from "./Vm.sol";

/// @notice ERC-5267 domain of a contract wallet (solady's accounts expose it).
interface IERC5267 {
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        );
}

/// @notice Signs USDC's ERC-3009 ReceiveWithAuthorization the way a wallet does: the type string is written out
///         here (not taken from the router), and the token's EIP-712 domain is built from what the token reports
///         (name(), version(), chain id, its address) and checked against its DOMAIN_SEPARATOR(), never assumed.
library AuthUtils {
    Vm private constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    string internal constant RECEIVE_TYPE =
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";
    bytes32 internal constant RECEIVE_TYPEHASH = keccak256(bytes(RECEIVE_TYPE));

    struct Authorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    /// @dev The authorization the service asks the buyer to sign for `o`: to the router, the order's amount,
    ///      valid at once (validAfter = 0) until the order's deadline (validBefore = deadline + 1), nonce =
    ///      hashPayOrder(o).
    function forOrder(IPaymentRouter router, address from, IPaymentRouter.PayOrder memory o)
        internal
        view
        returns (Authorization memory)
    {
        return Authorization({
            from: from,
            to: address(router),
            value: o.amount,
            validAfter: 0,
            validBefore: o.deadline + 1,
            nonce: router.hashPayOrder(o)
        });
    }

    /// @dev The token's EIP-712 domain separator, rebuilt from name() and version() and required to equal the
    ///      token's own DOMAIN_SEPARATOR().
    function tokenDomain(IFiatTokenV2_2 token) internal view returns (bytes32 separator) {
        separator = keccak256(
            abi.encode(
                SigUtils.DOMAIN_TYPEHASH,
                keccak256(bytes(token.name())),
                keccak256(bytes(token.version())),
                block.chainid,
                address(token)
            )
        );
        require(separator == token.DOMAIN_SEPARATOR(), "AuthUtils: token domain mismatch");
    }

    function structHash(Authorization memory a) internal pure returns (bytes32) {
        return keccak256(abi.encode(RECEIVE_TYPEHASH, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce));
    }

    function digest(IFiatTokenV2_2 token, Authorization memory a) internal view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", tokenDomain(token), structHash(a)));
    }

    /// @dev An EOA's 65-byte r‖s‖v signature.
    function sign(uint256 key, IFiatTokenV2_2 token, Authorization memory a) internal view returns (bytes memory) {
        return SigUtils.sign(key, digest(token, a));
    }

    /// @dev What an ERC-7739 smart account (solady's ERC1271) accepts from its owner `ownerKey`: the owner signs
    ///      TypedDataSign(contents = the authorization's struct hash, the account's ERC-5267 domain) under the
    ///      token's domain, and the signature carries the token's domain separator, the contents hash and the
    ///      contents type so the account can rebuild the token's digest and check it is the one it was asked about.
    function signNested(uint256 ownerKey, address account, IFiatTokenV2_2 token, Authorization memory a)
        internal
        view
        returns (bytes memory)
    {
        bytes32 appDomain = tokenDomain(token);
        bytes32 contents = structHash(a);
        (, string memory name, string memory version, uint256 chainId, address verifyingContract, bytes32 salt,) =
            IERC5267(account).eip712Domain();
        bytes32 typedDataSignTypehash = keccak256(
            abi.encodePacked(
                "TypedDataSign(ReceiveWithAuthorization contents,string name,string version,uint256 chainId,",
                "address verifyingContract,bytes32 salt)",
                RECEIVE_TYPE
            )
        );
        bytes32 wrapped = keccak256(
            abi.encode(
                typedDataSignTypehash,
                contents,
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                chainId,
                verifyingContract,
                salt
            )
        );
        bytes memory ownerSig = SigUtils.sign(ownerKey, keccak256(abi.encodePacked("\x19\x01", appDomain, wrapped)));
        return abi.encodePacked(ownerSig, appDomain, contents, RECEIVE_TYPE, uint16(bytes(RECEIVE_TYPE).length));
    }
}
