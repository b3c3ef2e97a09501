// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";

/// @notice How authorizations meet the rest of the router: refunds, settlement, cancellation, excess recovery.
contract EscrowBooksTest is EscrowTestBase {
    IPaymentRouter.PayOrder internal o;

    function setUp() public override {
        super.setUp();
        o = defaultAuth();
        authorize(o);
        vm.prank(buyer);
        usdc.approve(address(router), type(uint256).max); // the buyer also funds refunds in some tests
    }

    function refundAs(IPaymentRouter.RefundOrder memory r, address submitter) internal {
        bytes memory sig = sign(r);
        vm.prank(submitter);
        router.refund(r, sig);
    }

    function expectRefundRevert(IPaymentRouter.RefundOrder memory r, bytes memory reason) internal {
        bytes memory sig = sign(r);
        vm.prank(operator);
        vm.expectRevert(reason);
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundAuthorized() public {
        expectRefundRevert(
            refundOrder(o.orderId, 1), abi.encodeWithSelector(IPaymentRouter.NotCaptured.selector, o.orderId)
        );
        vm.assertEq(router.held(address(usdc)), 100e6, "held untouched");
    }

    /// After a partial capture the order's amount is what was captured: refunds go up to it, from the reserve
    /// first, and never into the returned part.
    function test_Refund_AfterCapture_UpToCaptured() public {
        uint256 c = 40e6;
        Split memory x = defaultSplit(c); // reserve 3.76
        capture(o, c, x);
        expectRefundRevert(
            refundOrder(o.orderId, c + 1),
            abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, o.orderId, c + 1, c)
        );
        uint256 buyerBefore = bal(buyer);
        refundAs(refundOrder(o.orderId, x.reserveHold), operator); // the reserve alone
        vm.assertEq(bal(buyer) - buyerBefore, x.reserveHold, "reserve refunded");
        vm.assertEq(router.reserved(address(usdc)), 0, "reserve spent");
        address funder = makeAddr("funder");
        usdc.mint(funder, c);
        vm.prank(funder);
        usdc.approve(address(router), c);
        refundAs(refundOrder(o.orderId, c - x.reserveHold), funder);
        vm.assertEq(bal(buyer) - buyerBefore, c, "whole captured amount refunded");
        expectRefundRevert(
            refundOrder(o.orderId, 1),
            abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, o.orderId, 1, 0)
        );
        vm.assertEq(bal(address(router)), 0, "router empty");
    }

    function test_RevertWhen_RefundAfterVoidOrReclaim() public {
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        expectRefundRevert(
            refundOrder(o.orderId, 1),
            abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, o.orderId, 1, 0)
        );
        IPaymentRouter.PayOrder memory other = defaultAuth();
        authorize(other);
        vm.warp(other.captureDeadline);
        router.reclaim(other.orderId);
        expectRefundRevert(
            refundOrder(other.orderId, 1),
            abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, other.orderId, 1, 0)
        );
    }

    function test_SettleBatch_SkipsAuthorized() public {
        vm.warp(block.timestamp + 30 days);
        vm.recordLogs();
        vm.prank(operator);
        router.settleBatch(bytes32("stl_1"), ids1(o.orderId));
        vm.assertEq(countLogs(address(router), IPaymentRouter.ReserveReleased.selector), 0, "nothing released");
        vm.assertEq(router.held(address(usdc)), 100e6, "held untouched");
        vm.assertEq(bal(address(router)), 100e6, "router balance");
        vm.assertEq(bal(merchant), 0, "merchant");
    }

    /// The captured reserve is released only from capture time + hold, not authorization time + hold.
    function test_SettleBatch_ReleasesCapturedReserveAfterCaptureTimePlusHold() public {
        vm.warp(block.timestamp + 2 days);
        uint256 capturedAt = block.timestamp;
        Split memory x = defaultSplit(100e6);
        capture(o, 100e6, x);
        uint256 merchantBefore = bal(merchant);

        vm.warp(capturedAt + HOLD - 1);
        vm.prank(operator);
        router.settleBatch(bytes32("stl_early"), ids1(o.orderId));
        vm.assertEq(router.orders(o.orderId).reserve, x.reserveHold, "still inside the hold");

        vm.warp(capturedAt + HOLD);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(o.orderId, bytes32("stl_due"), merchant, x.reserveHold);
        vm.prank(operator);
        router.settleBatch(bytes32("stl_due"), ids1(o.orderId));
        vm.assertEq(bal(merchant) - merchantBefore, x.reserveHold, "reserve released");
        vm.assertEq(bal(address(router)), 0, "router empty");
    }

    function test_CancelOrders_SkipsAuthorized() public {
        vm.recordLogs();
        vm.prank(operator);
        router.cancelOrders(ids1(o.orderId));
        vm.assertEq(countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector), 0, "not cancelled");
        vm.assertFalse(router.orderCancelled(o.orderId), "cancelled flag");
        capture(o, 100e6, defaultSplit(100e6)); // still capturable
    }

    function test_RecoverExcess_LeavesHeldFunds() public {
        address rescue = makeAddr("rescue");
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.ZeroAmount.selector));
        router.recoverExcess(address(usdc), rescue);

        capture(o, 50e6, defaultSplit(50e6)); // reserve 4.7 booked, nothing held
        IPaymentRouter.PayOrder memory other = defaultAuth();
        authorize(other); // 100 held
        usdc.mint(address(router), 7); // sent directly
        vm.prank(owner);
        router.recoverExcess(address(usdc), rescue);
        vm.assertEq(bal(rescue), 7, "only the excess");
        vm.assertEq(bal(address(router)), 100e6 + 4.7e6, "held + reserved stay");
        vm.prank(operator);
        router.voidAuthorization(other.orderId); // and the held funds can still be returned
        vm.assertEq(bal(address(router)), router.reserved(address(usdc)), "reserves left");
    }
}
