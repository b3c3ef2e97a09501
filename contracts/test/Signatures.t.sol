// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {PaymentRouter} from "../src/PaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice Signature edge cases. Malformed signatures are refused as InvalidSigner(address(0)); replay is
///         blocked by orderId, so even an accepted alternative encoding could not pay an order twice.
contract SignaturesTest is RouterTestBase {
    function _expectInvalid(IPaymentRouter.PayOrder memory o, bytes memory sig, address recovered) internal {
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_HighS() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, router.hashPayOrder(o));
        // The same point with s' = n - s and the other parity: ecrecover still yields the signer.
        bytes32 highS = bytes32(SigUtils.SECP256K1_N - uint256(s));
        uint8 flippedV = v == 27 ? 28 : 27;
        vm.assertEq(ecrecover(router.hashPayOrder(o), flippedV, r, highS), signer, "malleable twin is valid ECDSA");
        _expectInvalid(o, abi.encodePacked(r, highS, flippedV), address(0));
    }

    function test_RevertWhen_CompactSignature() public {
        // EIP-2098 64-byte signatures are refused (OZ v5 tryRecover accepts 65 bytes only).
        IPaymentRouter.PayOrder memory o = defaultOrder();
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, router.hashPayOrder(o));
        bytes32 vs = bytes32(uint256(s) | (uint256(v - 27) << 255));
        _expectInvalid(o, abi.encodePacked(r, vs), address(0));
    }

    function test_RevertWhen_SignatureHasExtraByte() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        _expectInvalid(o, abi.encodePacked(sign(o), bytes1(0)), address(0));
    }

    function test_RevertWhen_BadV() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        (, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, router.hashPayOrder(o));
        _expectInvalid(o, abi.encodePacked(r, s, uint8(0)), address(0));
    }

    function test_RevertWhen_EmptySignature() public {
        _expectInvalid(defaultOrder(), "", address(0));
    }

    function test_RevertWhen_SignedForAnotherChain() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes32 foreign = SigUtils.payDigest(o, 8453, address(router));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, foreign);
        _expectInvalid(o, abi.encodePacked(r, s, v), ecrecover(router.hashPayOrder(o), v, r, s));
    }

    function test_RevertWhen_ChainForkedAfterSigning() public {
        // The router rebuilds its domain separator when block.chainid changes (OZ EIP712), so signatures
        // made before a fork do not work on the other side of it.
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        vm.chainId(8453);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, SigUtils.payDigest(o, 31337, address(router)));
        vm.assertEq(keccak256(sig), keccak256(abi.encodePacked(r, s, v)), "signed for the old chain");
        _expectInvalid(o, sig, ecrecover(router.hashPayOrder(o), v, r, s));
    }

    function test_RevertWhen_SignedForAnotherRouter() public {
        PaymentRouter other = new PaymentRouter(owner, signer, operator, treasury, 7 days);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes32 foreign = SigUtils.payDigest(o, block.chainid, address(other));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, foreign);
        _expectInvalid(o, abi.encodePacked(r, s, v), ecrecover(router.hashPayOrder(o), v, r, s));
    }

    function test_RevertWhen_RefundSignatureUsedAsPayment() public {
        // Distinct type hashes: a RefundOrder signature can never authorise a PayOrder.
        IPaymentRouter.PayOrder memory o = defaultOrder();
        IPaymentRouter.RefundOrder memory r = IPaymentRouter.RefundOrder(o.orderId, bytes32(0), buyer, 1, o.deadline);
        bytes memory refundSig = sign(r);
        address recovered = SigUtils.recover(router.hashPayOrder(o), refundSig);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        vm.prank(buyer);
        router.payOrder(o, refundSig);
    }
}
