// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AuthUtils, IERC5267} from "./AuthUtils.sol";
import {IFiatTokenV2_2} from "./CircleUSDC.sol";
import {SigUtils} from "./SigUtils.sol";

/// @notice Signs USDC's ERC-3009 TransferWithAuthorization as the stock x402 `exact` client does (to = the router,
///         value = the price, a random nonce), in the token's EIP-712 domain rebuilt from what the token reports.
library X402Utils {
    string internal constant TRANSFER_TYPE =
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";
    bytes32 internal constant TRANSFER_TYPEHASH = keccak256(bytes(TRANSFER_TYPE));

    bytes32 internal constant CANCEL_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// @dev `authorizer`'s signature cancelling its ERC-3009 `nonce` at `token`.
    function signCancel(uint256 key, address authorizer, IFiatTokenV2_2 token, bytes32 nonce)
        internal
        view
        returns (bytes memory)
    {
        bytes32 structHash_ = keccak256(abi.encode(CANCEL_TYPEHASH, authorizer, nonce));
        return SigUtils.sign(key, keccak256(abi.encodePacked("\x19\x01", AuthUtils.tokenDomain(token), structHash_)));
    }

    function structHash(AuthUtils.Authorization memory a) internal pure returns (bytes32) {
        return keccak256(abi.encode(TRANSFER_TYPEHASH, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce));
    }

    function digest(IFiatTokenV2_2 token, AuthUtils.Authorization memory a) internal view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", AuthUtils.tokenDomain(token), structHash(a)));
    }

    function sign(uint256 key, IFiatTokenV2_2 token, AuthUtils.Authorization memory a)
        internal
        view
        returns (bytes memory)
    {
        return SigUtils.sign(key, digest(token, a));
    }

    /// @dev As AuthUtils.signNested, for TransferWithAuthorization (solady's ERC-7739 nested typed data).
    function signNested(uint256 ownerKey, address account, IFiatTokenV2_2 token, AuthUtils.Authorization memory a)
        internal
        view
        returns (bytes memory)
    {
        bytes32 appDomain = AuthUtils.tokenDomain(token);
        bytes32 contents = structHash(a);
        (, string memory name, string memory version, uint256 chainId, address verifyingContract, bytes32 salt,) =
            IERC5267(account).eip712Domain();
        bytes32 typedDataSignTypehash = keccak256(
            abi.encodePacked(
                "TypedDataSign(TransferWithAuthorization contents,string name,string version,uint256 chainId,",
                "address verifyingContract,bytes32 salt)",
                TRANSFER_TYPE
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
        return abi.encodePacked(ownerSig, appDomain, contents, TRANSFER_TYPE, uint16(bytes(TRANSFER_TYPE).length));
    }
}
