// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";

/// @notice payOrderWithTransfer: an x402 `exact` TransferWithAuthorization (random nonce, to = router) pulled by the
///         router from Circle's real FiatTokenV2_2 and split in the same transaction exactly as payOrder splits.
contract X402PayTest is X402TestBase {
    /// @dev Every balance that could move, and the router's books.
    function snapshot(address from) internal view returns (uint256[7] memory s) {
        s = [
            fbal(from),
            fbal(address(router)),
            fbal(treasury),
            fbal(platform),
            fbal(merchant),
            router.reserved(address(fiat)),
            router.held(address(fiat))
        ];
    }

    function assertNothingMoved(uint256[7] memory before, IPaymentRouter.PayOrder memory o, address from)
        internal
        view
    {
        uint256[7] memory n = snapshot(from);
        for (uint256 i; i < 7; ++i) {
            vm.assertEq(n[i], before[i], string.concat("unchanged ", vm.toString(i)));
        }
        vm.assertFalse(router.orders(o.orderId).paid, "order stays unpaid");
    }

    function test_x402_splitsExactlyAsPayOrder() public {
        IPaymentRouter.PayOrder memory o = x402Order(123_456_789, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        uint256 payerBefore = fbal(payer);

        uint256 snap = vm.snapshotState();
        vm.startPrank(payer);
        fiat.approve(address(router), o.amount);
        router.payOrder(o, sign(o));
        vm.stopPrank();
        uint256[7] memory classic = snapshot(payer);
        vm.revertToState(snap);

        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId,
            payer,
            merchant,
            address(fiat),
            o.amount,
            o.serviceFee,
            o.platformFee,
            o.reserveHold,
            platform,
            block.timestamp + HOLD
        );
        vm.expectEmit();
        emit IPaymentRouter.X402Settled(o.orderId, payer, a.nonce);
        payX402(o, a, authSig);

        uint256[7] memory x = snapshot(payer);
        for (uint256 i; i < 7; ++i) {
            vm.assertEq(x[i], classic[i], string.concat("as payOrder ", vm.toString(i)));
        }
        vm.assertEq(payerBefore - x[0], o.amount, "payer debited exactly the amount");
        vm.assertEq(x[2], 1_234_567, "service fee, base units");
        vm.assertEq(x[3], 6_172_839, "platform fee, base units");
        vm.assertEq(x[1], 11_604_938, "router keeps the reserve only");
        vm.assertEq(x[4], 104_444_445, "merchant share, base units");
        vm.assertEq(fbal(relayer), 0, "relayer receives nothing");
        vm.assertEq(router.orders(o.orderId).payer, payer, "from recorded as payer");
        vm.assertTrue(router.x402Consumed(payer, a.nonce), "consumed");
        vm.assertTrue(fiat.authorizationState(payer, a.nonce), "nonce burnt at the token");
    }

    function test_x402_authorizationWithCaptureDeadline_holdsThenCaptures() public {
        IPaymentRouter.PayOrder memory o = x402Order(80e6, payer);
        o.captureDeadline = block.timestamp + 7 days;
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        vm.expectEmit();
        emit IPaymentRouter.OrderAuthorized(
            o.orderId, payer, merchant, address(fiat), o.amount, platform, o.captureDeadline
        );
        vm.expectEmit();
        emit IPaymentRouter.X402Settled(o.orderId, payer, a.nonce);
        payX402(o, a, signX402(PAYER_KEY, a));
        vm.assertEq(router.held(address(fiat)), o.amount, "held");
        vm.assertEq(fbal(address(router)), o.amount, "router holds the whole amount");
        vm.assertEq(fbal(merchant), 0, "nobody paid yet");

        vm.prank(operator);
        router.capture(o, o.amount, o.serviceFee, o.platformFee, o.reserveHold);
        vm.assertEq(router.held(address(fiat)), 0, "nothing held after capture");
        vm.assertEq(fbal(address(router)), o.reserveHold, "reserve kept");
        vm.assertEq(fbal(merchant), o.amount - o.serviceFee - o.platformFee - o.reserveHold, "merchant share");
    }

    function test_RevertWhen_OrderNotPayerLocked() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6); // payer = address(0)
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        uint256[7] memory b = snapshot(payer);
        expectPayX402Revert(err(IPaymentRouter.PayerLockRequired.selector, o.orderId), o, a, signX402(PAYER_KEY, a));
        assertNothingMoved(b, o, payer);
        vm.assertFalse(router.x402Consumed(payer, a.nonce), "not consumed");
    }

    function test_RevertWhen_FromIsNotTheLockedPayer() public {
        uint256 otherKey = 0xD00D;
        address other = vm.addr(otherKey);
        mintTo(other, 100e6);
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(other, o);
        uint256[7] memory b = snapshot(other);
        expectPayX402Revert(
            abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, payer, other), o, a, signX402(otherKey, a)
        );
        assertNothingMoved(b, o, other);
    }

    function test_RevertWhen_SignedValueDiffersFromAmount() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        uint256[7] memory b = snapshot(payer);
        for (uint256 i; i < 2; ++i) {
            AuthUtils.Authorization memory signed = copy(a);
            signed.value = i == 0 ? o.amount - 1 : o.amount + 1;
            expectPayX402Revert(errString("FiatTokenV2: invalid signature"), o, a, signX402(PAYER_KEY, signed));
        }
        assertNothingMoved(b, o, payer);
    }

    function test_RevertWhen_Expired() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        vm.warp(a.validBefore);
        uint256[7] memory b = snapshot(payer);
        expectPayX402Revert(errString("FiatTokenV2: authorization is expired"), o, a, authSig);
        assertNothingMoved(b, o, payer);
        vm.assertFalse(router.x402Consumed(payer, a.nonce), "a revert consumes nothing");
    }

    function test_RevertWhen_NotYetValid() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        a.validAfter = block.timestamp; // exclusive: valid from the next second on
        uint256[7] memory b = snapshot(payer);
        expectPayX402Revert(errString("FiatTokenV2: authorization is not yet valid"), o, a, signX402(PAYER_KEY, a));
        assertNothingMoved(b, o, payer);
    }

    function test_RevertWhen_ValidBeforeBeyondDeadline() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        a.validBefore = o.deadline + 2;
        expectPayX402Revert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline),
            o,
            a,
            signX402(PAYER_KEY, a)
        );
        // deadline + 1 is the last accepted value (ERC-3009 is exclusive, the order inclusive).
        a.validBefore = o.deadline + 1;
        payX402(o, a, signX402(PAYER_KEY, a));
        vm.assertTrue(router.orders(o.orderId).paid, "paid at the bound");
    }

    function test_RevertWhen_NonceReplayed() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        payX402(o, a, authSig);
        // The same authorization for another order of the same amount, locked to the same payer.
        IPaymentRouter.PayOrder memory o2 = x402Order(10e6, payer);
        uint256[7] memory b = snapshot(payer);
        expectPayX402Revert(
            abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, a.nonce), o2, a, authSig
        );
        assertNothingMoved(b, o2, payer);
        // And for the same order again.
        expectPayX402Revert(err(IPaymentRouter.AlreadyPaid.selector, o.orderId), o, a, authSig);
    }

    function test_RevertWhen_FrontRunFirst_tokenRefusesUsedNonce() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        expectPayX402Revert(errString("FiatTokenV2: authorization is used or canceled"), o, a, authSig);
        vm.assertFalse(router.x402Consumed(payer, a.nonce), "left for attribution");
        vm.assertEq(unattributed(), o.amount, "funds sit unattributed");
    }

    function test_RevertWhen_Paused() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        vm.prank(owner);
        router.pause();
        uint256[7] memory b = snapshot(payer);
        expectPayX402Revert(abi.encodeWithSelector(Pausable.EnforcedPause.selector), o, a, signX402(PAYER_KEY, a));
        assertNothingMoved(b, o, payer);
    }

    function test_RevertWhen_ServiceSignatureForAnotherOrder() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory sig = sign(o);
        o.merchant = frontRunner; // not what the service signed
        bytes memory authSig = signX402(PAYER_KEY, a);
        address recovered = SigUtils.recover(SigUtils.payDigest(o, block.chainid, address(router)), sig);
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        router.payOrderWithTransfer(o, sig, payer, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    function test_x402_refundGoesBackToFrom() public {
        IPaymentRouter.PayOrder memory o = x402Order(50e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        payX402(o, a, signX402(PAYER_KEY, a));
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, o.reserveHold);
        r.to = payer;
        uint256 before = fbal(payer);
        router.refund(r, sign(r));
        vm.assertEq(fbal(payer) - before, o.reserveHold, "refund to from");
    }
}
