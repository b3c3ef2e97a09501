// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice Fuzzed properties of issue 15: what recoverExcess may take, who a refund may pay, when a
///         reserve may be released, which ids a cancellation may void.
contract FuzzReservesTest is RouterTestBase {
    address internal funder;
    address internal rescue;
    bytes32[] internal paidIds;

    function setUp() public override {
        super.setUp();
        funder = makeAddr("funder");
        rescue = makeAddr("rescue");
        usdc.mint(funder, 1e15);
        vm.prank(funder);
        usdc.approve(address(router), type(uint256).max);
    }

    function _sumReserves() internal view returns (uint256 sum) {
        for (uint256 i; i < paidIds.length; ++i) {
            sum += router.orders(paidIds[i]).reserve;
        }
    }

    function _checkBooks(string memory step) internal view {
        uint256 reserved = router.reserved(address(usdc));
        vm.assertGe(bal(address(router)), reserved, step);
        vm.assertEq(reserved, _sumReserves(), step);
    }

    /// Random payments, refunds (reserve-only and funded), direct transfers and recoveries: the balance never
    /// drops below reserved, reserved is always Σ order reserves, and a recovery changes no order's reserve.
    function testFuzz_RecoverExcessNeverTouchesReserves(uint256 seed, uint256 steps) public {
        steps = bound(steps, 1, 24);
        uint256 directTotal;
        uint256 recoveredTotal;
        for (uint256 i; i < steps; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint256 action = r % 4;
            if (action == 0 || paidIds.length == 0) {
                IPaymentRouter.PayOrder memory o =
                    splitOrder(address(usdc), bound(r >> 8, 1, 1e12), 100, 500, bound(r >> 64, 0, 10_000));
                pay(o);
                paidIds.push(o.orderId);
            } else if (action == 1) {
                bytes32 id = paidIds[(r >> 8) % paidIds.length];
                IPaymentRouter.Order memory rec = router.orders(id);
                if (rec.refunded == rec.amount) continue;
                IPaymentRouter.RefundOrder memory ro = refundOrder(id, bound(r >> 64, 1, rec.amount - rec.refunded));
                bytes memory sig = sign(ro);
                vm.prank(funder);
                router.refund(ro, sig);
            } else if (action == 2) {
                uint256 amount = bound(r >> 8, 1, 1e9);
                vm.prank(funder);
                usdc.transfer(address(router), amount);
                directTotal += amount;
            } else {
                uint256 excess = bal(address(router)) - router.reserved(address(usdc));
                uint256 sumBefore = _sumReserves();
                if (excess == 0) {
                    vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
                }
                vm.prank(owner);
                router.recoverExcess(address(usdc), rescue);
                recoveredTotal += excess;
                vm.assertEq(_sumReserves(), sumBefore, "recover changed an order's reserve");
                vm.assertEq(bal(address(router)), router.reserved(address(usdc)), "after recover: balance == reserved");
            }
            _checkBooks("books after a step");
        }
        vm.assertEq(bal(rescue), recoveredTotal, "recovered exactly the excess");
        vm.assertEq(bal(address(router)) - router.reserved(address(usdc)), directTotal - recoveredTotal, "excess");
    }

    /// Whoever paid (a named payer or anyone for an open order) is the only address a refund can pay.
    function testFuzz_RefundOnlyToPayer(address payer, address to, uint256 amount, bool named, bool toPayer) public {
        vm.assume(uint160(payer) > 0x100 && payer.code.length == 0 && payer != address(vm));
        if (toPayer) to = payer; // half the runs take the happy path
        vm.assume(to != address(0));
        usdc.mint(payer, 100e6);
        vm.prank(payer);
        usdc.approve(address(router), type(uint256).max);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        if (named) o.payer = payer;
        payAs(payer, o);
        amount = bound(amount, 1, o.reserveHold);
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, amount);
        r.to = to;
        bytes memory sig = sign(r); // a valid signer signs it, as a stolen key would
        uint256 toBefore = bal(to);
        if (to != payer) {
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, payer, to));
            router.refund(r, sig);
            vm.assertEq(bal(to), toBefore, "nothing to the stranger");
            vm.assertEq(bal(address(router)), o.reserveHold, "reserve intact");
        } else {
            router.refund(r, sig);
            vm.assertEq(bal(to) - toBefore, amount, "payer refunded");
        }
    }

    /// A reserve is released exactly when the clock has reached paid-at + the hold in force at payment, even
    /// if the owner changes the hold in between.
    function testFuzz_HoldRespected(uint256 hold, uint256 newHold, uint256 elapsed) public {
        hold = bound(hold, 0, router.MAX_RESERVE_HOLD());
        newHold = bound(newHold, 0, router.MAX_RESERVE_HOLD());
        elapsed = bound(elapsed, 0, 2 * router.MAX_RESERVE_HOLD());
        vm.prank(owner);
        router.setReserveHold(hold);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        uint256 paidAt = block.timestamp;
        vm.assertEq(router.orders(o.orderId).releaseAfter, paidAt + hold, "releaseAfter");
        vm.prank(owner);
        router.setReserveHold(newHold);

        vm.warp(paidAt + elapsed);
        vm.recordLogs();
        vm.prank(operator);
        router.settleBatch(keccak256("stl_fuzz"), ids1(o.orderId));
        uint256 released = countLogs(address(router), IPaymentRouter.ReserveReleased.selector);
        if (elapsed >= hold) {
            vm.assertEq(released, 1, "released once the hold passed");
            vm.assertEq(bal(address(router)), 0, "paid out");
        } else {
            vm.assertEq(released, 0, "no release inside the hold");
            vm.assertEq(router.orders(o.orderId).reserve, o.reserveHold, "reserve kept");
            vm.assertEq(router.reserved(address(usdc)), o.reserveHold, "reserved kept");
        }
    }

    /// cancelOrders voids exactly the ids that were not paid (one event each); paid ones are untouched and
    /// the voided ones can never be paid.
    function testFuzz_CancelOrdersSkipsPaid(uint256 paidMask, uint256 n) public {
        n = bound(n, 1, 12);
        IPaymentRouter.PayOrder[] memory os = new IPaymentRouter.PayOrder[](n);
        bytes32[] memory ids = new bytes32[](n);
        uint256 unpaid;
        for (uint256 i; i < n; ++i) {
            os[i] = defaultOrder();
            ids[i] = os[i].orderId;
            if ((paidMask >> i) & 1 == 1) pay(os[i]);
            else ++unpaid;
        }
        uint256 routerBefore = bal(address(router));
        vm.recordLogs();
        vm.prank(operator);
        router.cancelOrders(ids);
        vm.assertEq(
            countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector), unpaid, "one event per unpaid"
        );
        vm.assertEq(bal(address(router)), routerBefore, "no token moved");
        for (uint256 i; i < n; ++i) {
            bool wasPaid = (paidMask >> i) & 1 == 1;
            vm.assertEq(router.orderCancelled(ids[i]), !wasPaid, "cancelled iff unpaid");
            if (wasPaid) continue;
            bytes memory sig = sign(os[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, ids[i]));
            vm.prank(buyer);
            router.payOrder(os[i], sig);
        }
    }
}
