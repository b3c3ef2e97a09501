// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {Vm} from "./Vm.sol";

/// @notice Independent EIP-712 construction for tests: built from the type strings written out here, not
///         from the router's constants, so a typo in either side shows up as a signature mismatch.
library SigUtils {
    Vm private constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 internal constant SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant PAY_TYPEHASH = keccak256(
        "PayOrder(bytes32 orderId,address token,uint256 amount,address payer,address merchant,address platform,uint256 serviceFee,uint256 platformFee,uint256 reserveHold,uint256 deadline,uint256 captureDeadline)"
    );
    bytes32 internal constant REFUND_TYPEHASH =
        keccak256("RefundOrder(bytes32 orderId,bytes32 refundId,address to,uint256 amount,uint256 deadline)");

    function domainSeparator(uint256 chainId, address router) internal pure returns (bytes32) {
        return
            keccak256(
                abi.encode(DOMAIN_TYPEHASH, keccak256("Trisettle PaymentRouter"), keccak256("1"), chainId, router)
            );
    }

    function payDigest(IPaymentRouter.PayOrder memory o, uint256 chainId, address router)
        internal
        pure
        returns (bytes32)
    {
        bytes32 structHash = keccak256(
            abi.encode(
                PAY_TYPEHASH,
                o.orderId,
                o.token,
                o.amount,
                o.payer,
                o.merchant,
                o.platform,
                o.serviceFee,
                o.platformFee,
                o.reserveHold,
                o.deadline,
                o.captureDeadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(chainId, router), structHash));
    }

    function refundDigest(IPaymentRouter.RefundOrder memory r, uint256 chainId, address router)
        internal
        pure
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(REFUND_TYPEHASH, r.orderId, r.refundId, r.to, r.amount, r.deadline));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(chainId, router), structHash));
    }

    function sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    /// @dev Who a 65-byte r‖s‖v signature recovers to for `digest` (what the router will see).
    function recover(bytes32 digest, bytes memory sig) internal pure returns (address) {
        require(sig.length == 65, "recover: 65 bytes");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(sig, 0x20))
            s := mload(add(sig, 0x40))
            v := byte(0, mload(add(sig, 0x60)))
        }
        return ecrecover(digest, v, r, s);
    }

    function signPay(uint256 key, IPaymentRouter.PayOrder memory o, address router)
        internal
        view
        returns (bytes memory)
    {
        return sign(key, payDigest(o, block.chainid, router));
    }

    function signRefund(uint256 key, IPaymentRouter.RefundOrder memory r, address router)
        internal
        view
        returns (bytes memory)
    {
        return sign(key, refundDigest(r, block.chainid, router));
    }

    /// @dev EIP-2612 permit digest for an OpenZeppelin ERC20Permit token.
    function permitDigest(
        bytes32 tokenDomainSeparator,
        address owner,
        address spender,
        uint256 value,
        uint256 nonce,
        uint256 deadline
    ) internal pure returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"),
                owner,
                spender,
                value,
                nonce,
                deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", tokenDomainSeparator, structHash));
    }
}
