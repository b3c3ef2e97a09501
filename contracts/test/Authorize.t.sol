// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";
import {SigUtils} from "./utils/SigUtils.sol";

/// @notice Authorizing: a PayOrder with a captureDeadline, through each of the three pay paths, holds the whole
///         amount in the router and pays nobody.
contract AuthorizeTest is EscrowTestBase {
    uint256 internal constant PERMIT_KEY = 0x9E4A17;

    /// @dev The router holds exactly `o.amount` for `o`, paid by `from`, and nobody was paid.
    function assertHeld(IPaymentRouter.PayOrder memory o, address from, Books memory b) internal view {
        Books memory n = booksOf(o.token, from);
        vm.assertEq(b.payer - n.payer, o.amount, "payer paid the amount");
        vm.assertEq(n.router - b.router, o.amount, "router holds the amount");
        vm.assertEq(n.held - b.held, o.amount, "held");
        vm.assertEq(n.reserved, b.reserved, "no reserve booked");
        vm.assertEq(n.treasury, b.treasury, "treasury unpaid");
        vm.assertEq(n.platform, b.platform, "platform unpaid");
        vm.assertEq(n.merchant, b.merchant, "merchant unpaid");
        IPaymentRouter.Order memory rec = router.orders(o.orderId);
        vm.assertTrue(rec.paid, "marked paid (the id is spent)");
        vm.assertEq(rec.token, o.token, "token");
        vm.assertEq(rec.payer, from, "payer recorded");
        vm.assertEq(rec.merchant, merchant, "merchant");
        vm.assertEq(rec.amount, 0, "nothing captured");
        vm.assertEq(rec.reserve, 0, "no reserve");
        vm.assertEq(rec.releaseAfter, 0, "no hold yet");
        vm.assertEq(rec.authorized, o.amount, "authorized");
        vm.assertEq(rec.captureDeadline, o.captureDeadline, "capture deadline");
        vm.assertEq(router.authorizationDigest(o.orderId), router.hashPayOrder(o), "digest kept");
    }

    function test_Authorize_PayOrder_HoldsAmountAndPaysNobody() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        Books memory b = booksOf(address(usdc), buyer);
        vm.recordLogs();
        vm.expectEmit();
        emit IPaymentRouter.OrderAuthorized(
            o.orderId, buyer, merchant, address(usdc), 100e6, platform, o.captureDeadline
        );
        authorize(o);
        vm.assertEq(countLogs(address(router), IPaymentRouter.OrderPaid.selector), 0, "no OrderPaid");
        assertHeld(o, buyer, b);
    }

    function test_Authorize_PayOrderWithPermit() public {
        address holder = vm.addr(PERMIT_KEY);
        usdc.mint(holder, 1_000e6);
        IPaymentRouter.PayOrder memory o = defaultAuth();
        (uint8 v, bytes32 r, bytes32 s) = signPermit(PERMIT_KEY, o.amount, block.timestamp + 1 hours);
        bytes memory sig = sign(o);
        Books memory b = booksOf(address(usdc), holder);
        vm.expectEmit();
        emit IPaymentRouter.OrderAuthorized(
            o.orderId, holder, merchant, address(usdc), 100e6, platform, o.captureDeadline
        );
        vm.prank(holder);
        router.payOrderWithPermit(o, sig, block.timestamp + 1 hours, v, r, s);
        assertHeld(o, holder, b);
        vm.assertEq(usdc.allowance(holder, address(router)), 0, "permit spent");
    }

    function test_Authorize_PayOrderWithAuthorization_CircleUSDC() public {
        IPaymentRouter.PayOrder memory o = authOrder(address(fiat), 250e6, S_BPS, P_BPS, R_BPS);
        AuthUtils.Authorization memory a = authFor(payer, o);
        Books memory b = booksOf(address(fiat), payer);
        vm.expectEmit();
        emit IPaymentRouter.OrderAuthorized(
            o.orderId, payer, merchant, address(fiat), 250e6, platform, o.captureDeadline
        );
        relay(o, a, signAuth(PAYER_KEY, a));
        assertHeld(o, payer, b);
        vm.assertTrue(fiat.authorizationState(payer, a.nonce), "nonce burnt");
        vm.assertEq(fbal(relayer), 0, "relayer gets nothing");
    }

    /// The ERC-3009 nonce is the digest, and the digest covers captureDeadline: an authorization the buyer signed
    /// for the order paid at once cannot authorize (or pay) the charge-later one.
    function test_RevertWhen_GaslessNonceOfOtherCaptureDeadline() public {
        IPaymentRouter.PayOrder memory o = authOrder(address(fiat), 250e6, S_BPS, P_BPS, R_BPS);
        IPaymentRouter.PayOrder memory atOnce = copyOrder(o);
        atOnce.captureDeadline = 0;
        AuthUtils.Authorization memory a = authFor(payer, atOnce);
        bytes32 digest = router.hashPayOrder(o);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationNotForOrder.selector, digest, a.nonce),
            o,
            a,
            signAuth(PAYER_KEY, a)
        );
    }

    function test_Authorize_ExactlySixtyDays() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = block.timestamp + router.MAX_AUTHORIZATION_PERIOD();
        authorize(o);
        vm.assertEq(router.orders(o.orderId).authorized, o.amount, "authorized");
    }

    function test_Authorize_OneSecondAhead() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = block.timestamp + 1;
        authorize(o);
        vm.assertEq(router.orders(o.orderId).captureDeadline, block.timestamp + 1, "capturable for one second");
    }

    function test_RevertWhen_CaptureDeadlineInPast() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = block.timestamp - 1;
        expectPayRevert(
            o,
            abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, o.captureDeadline, block.timestamp)
        );
    }

    function test_RevertWhen_CaptureDeadlineIsNow() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = block.timestamp;
        expectPayRevert(
            o,
            abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, o.captureDeadline, block.timestamp)
        );
    }

    function test_RevertWhen_CaptureDeadlineBeyondSixtyDays() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = block.timestamp + 60 days + 1;
        expectPayRevert(
            o,
            abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, o.captureDeadline, block.timestamp)
        );
    }

    /// Written as a subtraction: the largest value is refused, not overflowed past the check.
    function test_RevertWhen_CaptureDeadlineAbsurd() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = type(uint256).max;
        expectPayRevert(
            o,
            abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, o.captureDeadline, block.timestamp)
        );
    }

    /// The capture-deadline check comes after every existing check (here: the order's own deadline).
    function test_RevertWhen_ExpiredOrderWithBadCaptureDeadline_OrderExpiredFirst() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        o.captureDeadline = 1;
        vm.warp(o.deadline + 1);
        expectPayRevert(o, abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, block.timestamp));
    }

    function test_RevertWhen_AuthorizeTwice() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        authorize(o);
        expectPayRevert(o, abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        IPaymentRouter.PayOrder memory atOnce = copyOrder(o);
        atOnce.captureDeadline = 0; // the same id paid at once instead
        expectPayRevert(atOnce, abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
    }

    function test_RevertWhen_AuthorizeWhilePaused() public {
        IPaymentRouter.PayOrder memory o = defaultAuth();
        vm.prank(owner);
        router.pause();
        expectPayRevert(o, abi.encodeWithSelector(Pausable.EnforcedPause.selector));
    }

    /// captureDeadline is a signed field: a buyer (or relayer) cannot turn a payment into an authorization,
    /// nor move the deadline, without the service's signature failing.
    function test_RevertWhen_CaptureDeadlineTampered() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        o.captureDeadline = block.timestamp + 1 days;
        address recovered = SigUtils.recover(SigUtils.payDigest(o, block.chainid, address(router)), sig);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_PayOrder_CaptureDeadlineZeroPaysAtOnce() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        vm.recordLogs();
        pay(o);
        vm.assertEq(countLogs(address(router), IPaymentRouter.OrderAuthorized.selector), 0, "no OrderAuthorized");
        IPaymentRouter.Order memory rec = router.orders(o.orderId);
        vm.assertEq(rec.amount, 100e6, "paid");
        vm.assertEq(rec.authorized, 0, "nothing held");
        vm.assertEq(rec.captureDeadline, 0, "no capture deadline");
        vm.assertEq(router.held(address(usdc)), 0, "held");
        vm.assertEq(router.authorizationDigest(o.orderId), bytes32(0), "no digest kept");
    }

    function expectPayRevert(IPaymentRouter.PayOrder memory o, bytes memory reason) internal {
        bytes memory sig = sign(o);
        Books memory b = booksOf(o.token, buyer);
        vm.prank(buyer);
        vm.expectRevert(reason);
        router.payOrder(o, sig);
        assertSameBooks(booksOf(o.token, buyer), b);
    }
}
