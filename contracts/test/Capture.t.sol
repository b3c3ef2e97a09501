// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";

/// @notice capture: the operator splits all or part of an authorization inside the signed split's window and
///         returns the rest to the payer.
contract CaptureTest is EscrowTestBase {
    IPaymentRouter.PayOrder internal o;

    function setUp() public override {
        super.setUp();
        o = defaultAuth();
        authorize(o);
    }

    function test_Capture_Full_ExactSignedSplit() public {
        Books memory b = booksOf(address(usdc), buyer);
        uint256 releaseAfter = block.timestamp + HOLD;
        vm.expectEmit();
        emit IPaymentRouter.OrderCaptured(o.orderId, 100e6, 100e6, 0);
        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId, buyer, merchant, address(usdc), 100e6, 1e6, 5e6, 9.4e6, platform, releaseAfter
        );
        capture(o, 100e6, Split(1e6, 5e6, 9.4e6));

        Books memory n = booksOf(address(usdc), buyer);
        vm.assertEq(n.payer, b.payer, "payer gets nothing back");
        vm.assertEq(n.treasury - b.treasury, 1e6, "treasury");
        vm.assertEq(n.platform - b.platform, 5e6, "platform");
        vm.assertEq(n.merchant - b.merchant, 84.6e6, "merchant available");
        vm.assertEq(b.router - n.router, 90.6e6, "router keeps only the reserve");
        vm.assertEq(n.router, 9.4e6, "router balance = reserve");
        vm.assertEq(n.held, 0, "nothing held");
        vm.assertEq(n.reserved, 9.4e6, "reserve booked");
        IPaymentRouter.Order memory rec = router.orders(o.orderId);
        vm.assertEq(rec.amount, 100e6, "captured amount");
        vm.assertEq(rec.reserve, 9.4e6, "reserve");
        vm.assertEq(rec.authorized, 0, "authorization used");
        vm.assertEq(rec.releaseAfter, releaseAfter, "hold from capture");
        vm.assertEq(rec.captureDeadline, o.captureDeadline, "capture deadline kept");
    }

    /// 33.333333 of 100: each leg ⌊c·bps/10000⌋, the reserve 10% of the merchant's gross, 66.666667 back.
    function test_Capture_Partial_SplitsAndReturnsRest() public {
        uint256 c = 33_333_333;
        Split memory x = defaultSplit(c);
        vm.assertEq(x.serviceFee, 333_333, "service fee of c");
        vm.assertEq(x.platformFee, 1_666_666, "platform fee of c");
        vm.assertEq(x.reserveHold, 3_133_333, "reserve of c's gross 31_333_334");
        Books memory b = booksOf(address(usdc), buyer);
        vm.expectEmit();
        emit IPaymentRouter.OrderCaptured(o.orderId, 100e6, c, 66_666_667);
        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId,
            buyer,
            merchant,
            address(usdc),
            c,
            333_333,
            1_666_666,
            3_133_333,
            platform,
            block.timestamp + HOLD
        );
        capture(o, c, x);

        Books memory n = booksOf(address(usdc), buyer);
        vm.assertEq(n.payer - b.payer, 66_666_667, "rest back to the payer");
        vm.assertEq(n.treasury - b.treasury, 333_333, "treasury");
        vm.assertEq(n.platform - b.platform, 1_666_666, "platform");
        vm.assertEq(n.merchant - b.merchant, 28_200_001, "merchant available");
        vm.assertEq(n.router, 3_133_333, "router keeps the reserve of c");
        vm.assertEq(n.reserved, 3_133_333, "reserved");
        vm.assertEq(n.held, 0, "held");
        vm.assertEq(router.orders(o.orderId).amount, c, "order amount = captured");
    }

    /// The hold of the captured reserve runs from the capture, under the hold in force then.
    function test_Capture_ReserveHoldRunsFromCapture() public {
        vm.warp(block.timestamp + 2 days);
        vm.prank(owner);
        router.setReserveHold(1 days);
        capture(o, 100e6, defaultSplit(100e6));
        vm.assertEq(router.orders(o.orderId).releaseAfter, block.timestamp + 1 days, "capture time + hold then");
    }

    function test_Capture_LastSecondBeforeDeadline() public {
        vm.warp(o.captureDeadline - 1);
        capture(o, 1e6, defaultSplit(1e6));
        vm.assertEq(router.orders(o.orderId).amount, 1e6, "captured");
    }

    function test_RevertWhen_CaptureTwice() public {
        capture(o, 50e6, defaultSplit(50e6));
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId), o, 50e6, defaultSplit(50e6)
        );
    }

    function test_RevertWhen_CaptureAfterVoid() public {
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId), o, 1e6, defaultSplit(1e6)
        );
    }

    function test_RevertWhen_CaptureAtDeadline() public {
        vm.warp(o.captureDeadline);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.CaptureExpired.selector, o.captureDeadline, o.captureDeadline),
            o,
            100e6,
            defaultSplit(100e6)
        );
    }

    function test_RevertWhen_CaptureAfterDeadline() public {
        vm.warp(o.captureDeadline + 30 days);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.CaptureExpired.selector, o.captureDeadline, block.timestamp),
            o,
            100e6,
            defaultSplit(100e6)
        );
    }

    function test_RevertWhen_CaptureByNonOperator() public {
        address[4] memory callers = [buyer, owner, signer, merchant];
        for (uint256 i; i < callers.length; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, callers[i]));
            router.capture(o, 100e6, 1e6, 5e6, 9.4e6);
        }
    }

    /// Any field that differs from the authorized PayOrder (parties, token, split, deadlines) is refused.
    function test_RevertWhen_CaptureWithDifferentOrder() public {
        bytes memory mismatch = abi.encodeWithSelector(IPaymentRouter.AuthorizationMismatch.selector, o.orderId);
        for (uint256 f; f < 9; ++f) {
            IPaymentRouter.PayOrder memory t = o;
            if (f == 0) t.merchant = operator;
            if (f == 1) t.platform = operator;
            if (f == 2) t.payer = buyer;
            if (f == 3) t.token = address(fiat);
            if (f == 4) t.amount = 200e6;
            if (f == 5) t.serviceFee = 2e6;
            if (f == 6) t.reserveHold = 0;
            if (f == 7) t.captureDeadline += 1;
            if (f == 8) t.deadline -= 1;
            expectCaptureRevert(mismatch, t, 100e6, Split(1e6, 5e6, 9.4e6));
        }
    }

    function test_RevertWhen_CaptureOrderPaidAtOnce() public {
        IPaymentRouter.PayOrder memory paid = defaultOrder();
        pay(paid);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, paid.orderId), paid, 1e6, defaultSplit(1e6)
        );
    }

    function test_RevertWhen_CaptureUnknownOrder() public {
        IPaymentRouter.PayOrder memory unknown = defaultAuth();
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, unknown.orderId),
            unknown,
            1e6,
            defaultSplit(1e6)
        );
    }

    function test_RevertWhen_CaptureZero() public {
        expectCaptureRevert(abi.encodeWithSelector(IPaymentRouter.ZeroAmount.selector), o, 0, Split(0, 0, 0));
    }

    function test_RevertWhen_CaptureExceedsAuthorized() public {
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.CaptureExceedsAuthorized.selector, 100e6 + 1, 100e6),
            o,
            100e6 + 1,
            defaultSplit(100e6 + 1)
        );
    }

    function test_RevertWhen_CaptureWhilePaused() public {
        vm.prank(owner);
        router.pause();
        expectCaptureRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector), o, 100e6, defaultSplit(100e6));
    }

    /// Full capture: the window is the signed split exactly; one unit either side on any leg is refused.
    function test_RevertWhen_CaptureFullSplitOneUnitOff() public {
        _assertEachLegOffByOneRefused(100e6);
    }

    /// Partial capture of 33.333333: every leg's window is a single value here (checked in the test name's
    /// numbers above), so one unit either side on any leg is refused.
    function test_RevertWhen_CaptureSplitOneUnitOutsideWindowPerLeg() public {
        _assertEachLegOffByOneRefused(33_333_333);
    }

    function test_RevertWhen_CaptureLegsExceedAmount() public {
        uint256 c = 10;
        Books memory b = booksOf(address(usdc), buyer);
        expectCaptureRevert(outOfBounds(c, Split(11, 0, 0)), o, c, Split(11, 0, 0));
        expectCaptureRevert(outOfBounds(c, Split(5, 6, 0)), o, c, Split(5, 6, 0));
        expectCaptureRevert(outOfBounds(c, Split(0, 0, 11)), o, c, Split(0, 0, 11));
        expectCaptureRevert(
            outOfBounds(c, Split(type(uint256).max, type(uint256).max, type(uint256).max)),
            o,
            c,
            Split(type(uint256).max, type(uint256).max, type(uint256).max)
        );
        assertSameBooks(booksOf(address(usdc), buyer), b);
    }

    function _assertEachLegOffByOneRefused(uint256 c) internal {
        Split memory x = defaultSplit(c);
        Books memory b = booksOf(address(usdc), buyer);
        for (uint256 leg; leg < 3; ++leg) {
            for (uint256 up; up < 2; ++up) {
                Split memory y = Split(x.serviceFee, x.platformFee, x.reserveHold);
                if (leg == 0) y.serviceFee = up == 1 ? y.serviceFee + 1 : y.serviceFee - 1;
                if (leg == 1) y.platformFee = up == 1 ? y.platformFee + 1 : y.platformFee - 1;
                if (leg == 2) y.reserveHold = up == 1 ? y.reserveHold + 1 : y.reserveHold - 1;
                expectCaptureRevert(outOfBounds(c, y), o, c, y);
            }
        }
        assertSameBooks(booksOf(address(usdc), buyer), b);
        capture(o, c, x); // the service's own split still goes through
    }
}
