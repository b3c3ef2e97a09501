// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {PaymentRouter} from "../src/PaymentRouter.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice The reserve hold: fixed per order at payment (timestamp + reserveHoldSeconds), so neither a later
///         setting nor a stolen operator key can release a reserve before its time.
contract HoldTest is RouterTestBase {
    bytes32 internal constant BATCH = keccak256("stl_hold");

    function _settle(bytes32 batchId, bytes32 id) internal {
        vm.prank(operator);
        router.settleBatch(batchId, ids1(id));
    }

    function test_ReleaseAfterRecordedAtPayment() public {
        vm.assertEq(router.reserveHoldSeconds(), HOLD, "constructor hold");
        vm.warp(START + 123);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId, buyer, merchant, address(usdc), 100e6, 1e6, 5e6, 9.4e6, platform, START + 123 + HOLD
        );
        pay(o);
        vm.assertEq(router.orders(o.orderId).releaseAfter, START + 123 + HOLD, "releaseAfter = paid at + hold");
    }

    function test_ReleaseAfterIsPerOrder() public {
        IPaymentRouter.PayOrder memory a = defaultOrder();
        pay(a);
        vm.warp(block.timestamp + 1 days);
        IPaymentRouter.PayOrder memory b = defaultOrder();
        pay(b);
        vm.assertEq(router.orders(b.orderId).releaseAfter - router.orders(a.orderId).releaseAfter, 1 days, "per order");

        warpPastHold(a.orderId); // a's hold is over, b's has a day to go
        bytes32[] memory ids = new bytes32[](2);
        (ids[0], ids[1]) = (a.orderId, b.orderId);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(a.orderId, BATCH, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(BATCH, 1, 9.4e6);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        vm.assertEq(router.orders(b.orderId).reserve, 9.4e6, "b still held");
        vm.assertEq(router.reserved(address(usdc)), 9.4e6, "only b reserved");
    }

    function test_SettleBatch_InsideHoldSkips() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        vm.warp(router.orders(o.orderId).releaseAfter - 1); // one second short
        uint256 merchantBefore = bal(merchant);
        vm.recordLogs();
        _settle(BATCH, o.orderId);
        vm.assertEq(countLogs(address(router), IPaymentRouter.ReserveReleased.selector), 0, "no ReserveReleased");
        vm.assertEq(bal(merchant), merchantBefore, "merchant got nothing");
        vm.assertEq(bal(address(router)), 9.4e6, "reserve stays in the router");
        vm.assertEq(router.orders(o.orderId).reserve, 9.4e6, "reserve recorded");
        vm.assertEq(router.reserved(address(usdc)), 9.4e6, "reserved unchanged");
        vm.assertTrue(router.batchSettled(BATCH), "the batch id is spent all the same");
    }

    function test_SettleBatch_InsideHoldEmitsEmptyBatch() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(BATCH, 0, 0);
        _settle(BATCH, o.orderId);
    }

    function test_SettleBatch_AtReleaseAfterReleases() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        _settle(keccak256("stl_early"), o.orderId); // skipped: inside the hold
        vm.warp(router.orders(o.orderId).releaseAfter); // the first second the hold allows
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(o.orderId, BATCH, merchant, 9.4e6);
        _settle(BATCH, o.orderId);
        vm.assertEq(bal(address(router)), 0, "released");
        vm.assertEq(router.reserved(address(usdc)), 0, "nothing reserved");
    }

    function test_SetReserveHold() public {
        vm.expectEmit();
        emit IPaymentRouter.ReserveHoldUpdated(HOLD, 1 days);
        vm.prank(owner);
        router.setReserveHold(1 days);
        vm.assertEq(router.reserveHoldSeconds(), 1 days, "updated");
    }

    function test_SetReserveHold_OnlyLaterPayments() public {
        IPaymentRouter.PayOrder memory before = defaultOrder();
        pay(before);
        uint256 paidAt = block.timestamp;
        vm.prank(owner);
        router.setReserveHold(0);
        IPaymentRouter.PayOrder memory later = defaultOrder();
        pay(later);
        vm.assertEq(router.orders(before.orderId).releaseAfter, paidAt + HOLD, "earlier order keeps its hold");
        vm.assertEq(router.orders(later.orderId).releaseAfter, block.timestamp, "later order: no hold");

        bytes32[] memory ids = new bytes32[](2);
        (ids[0], ids[1]) = (before.orderId, later.orderId);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(BATCH, 1, 9.4e6);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        vm.assertEq(router.orders(before.orderId).reserve, 9.4e6, "shortening the hold released nothing early");
        vm.assertEq(router.orders(later.orderId).reserve, 0, "zero hold releases at once");
    }

    function test_SetReserveHold_LongerDoesNotExtendPaidOrders() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        vm.prank(owner);
        router.setReserveHold(365 days);
        warpPastHold(o.orderId);
        _settle(BATCH, o.orderId);
        vm.assertEq(router.orders(o.orderId).reserve, 0, "released on the hold it was paid under");
    }

    function test_SetReserveHold_Max() public {
        vm.prank(owner);
        router.setReserveHold(365 days);
        vm.assertEq(router.reserveHoldSeconds(), router.MAX_RESERVE_HOLD(), "the bound itself is allowed");
    }

    function test_RevertWhen_SetReserveHoldTooLong() public {
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.HoldTooLong.selector, 365 days + 1, 365 days));
        vm.prank(owner);
        router.setReserveHold(365 days + 1);
        vm.assertEq(router.reserveHoldSeconds(), HOLD, "unchanged");
    }

    function test_RevertWhen_SetReserveHoldNotOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, operator));
        vm.prank(operator); // the operator settles, but cannot shorten the hold it is bound by
        router.setReserveHold(0);
        vm.assertEq(router.reserveHoldSeconds(), HOLD, "unchanged");
    }

    function test_RevertWhen_ConstructorHoldTooLong() public {
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.HoldTooLong.selector, 365 days + 1, 365 days));
        new PaymentRouter(owner, signer, operator, treasury, 365 days + 1);
    }
}
