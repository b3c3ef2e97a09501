// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {ISubscriptionManager} from "../src/ISubscriptionManager.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {SubscriptionTestBase} from "./utils/SubscriptionTestBase.sol";
import {Vm} from "./utils/Vm.sol";

/// @notice Charges under a spend permission with Circle's USDC: the split to the base unit, the same OrderPaid as
///         payOrder, one charge per period inside [start, end), at most the amount, the first charge by permit.
contract SubscriptionChargeTest is SubscriptionTestBase {
    bytes32 internal constant ORDER_PAID = keccak256(
        "OrderPaid(bytes32,address,address,address,uint256,uint256,uint256,uint256,address,uint256)"
    );

    function test_hashPermission_isTheTypedDataDigestTheWalletSigns() public view {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        vm.assertEq(manager.hashPermission(p), permissionDigest(p), "digest");
        vm.assertEq(manager.SPEND_PERMISSION_TYPEHASH(), keccak256(bytes(PERMISSION_TYPE)), "type hash");
        vm.assertEq(manager.operator(), operator, "operator read from the router");
        vm.assertEq(address(manager.router()), address(router), "router");
    }

    function test_charge_splitsExactlyToTheBaseUnit() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        p.amount = 33_333_333;
        bytes memory sig = signPermission(PAYER_KEY, p);
        uint256 payerBefore = fbal(payer);
        bytes32 orderId = chargeAs(operator, p, sig, 33_333_333);
        // 1% = 333,333.33 → 333,333; 5% = 1,666,666.65 → 1,666,666; gross 31,333,334; 10% → 3,133,333.
        vm.assertEq(fbal(treasury), 333_333, "service fee");
        vm.assertEq(fbal(platform), 1_666_666, "platform fee");
        vm.assertEq(fbal(address(router)), 3_133_333, "reserve kept");
        vm.assertEq(fbal(merchant), 33_333_333 - 333_333 - 1_666_666 - 3_133_333, "merchant share");
        vm.assertEq(payerBefore - fbal(payer), 33_333_333, "payer debited the charge");
        vm.assertEq(fbal(address(manager)), 0, "the manager keeps nothing");
        vm.assertEq(IERC20(address(fiat)).allowance(address(manager), address(router)), 0, "no allowance left to the router");
        IPaymentRouter.Order memory o = router.orders(orderId);
        vm.assertEq(o.payer, payer, "subscriber recorded as payer");
        vm.assertEq(o.reserve, 3_133_333, "reserve recorded");
        vm.assertEq(o.releaseAfter, block.timestamp + HOLD, "hold as any payment");
        vm.assertEq(router.reserved(address(fiat)), 3_133_333, "reserved");
        vm.assertTrue(manager.charged(manager.hashPermission(p), 0), "period 0 charged");
        (uint256 s, uint256 pf, uint256 r) = manager.split(p, 33_333_333);
        vm.assertEq(s + pf + r, 333_333 + 1_666_666 + 3_133_333, "split view");
    }

    /// The module's OrderPaid is byte for byte the one payOrder emits for the same PayOrder.
    function test_charge_emitsTheOrderPaidOfPayOrder() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 orderId = nextOrderId();
        (uint256 s, uint256 pf, uint256 r) = expectedSplit(p, 77_777_777);
        IPaymentRouter.PayOrder memory o = IPaymentRouter.PayOrder({
            orderId: orderId,
            token: address(fiat),
            amount: 77_777_777,
            payer: payer,
            merchant: merchant,
            platform: platform,
            serviceFee: s,
            platformFee: pf,
            reserveHold: r,
            deadline: block.timestamp,
            captureDeadline: 0
        });
        uint256 snap = vm.snapshotState();
        vm.prank(payer);
        fiat.approve(address(router), o.amount);
        bytes memory serviceSig = sign(o);
        vm.recordLogs();
        vm.prank(payer);
        router.payOrder(o, serviceSig);
        Vm.Log memory classic = _orderPaid();
        vm.revertToState(snap);

        vm.recordLogs();
        vm.prank(operator);
        manager.charge(p, sig, orderId, 77_777_777);
        Vm.Log memory charged = _orderPaid();
        vm.assertEq(keccak256(abi.encode(charged.topics)), keccak256(abi.encode(classic.topics)), "topics");
        vm.assertEq(keccak256(charged.data), keccak256(classic.data), "data");
    }

    function test_firstChargeWithPermit_thenByAllowance() public {
        vm.prank(payer);
        fiat.approve(address(manager), 0);
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        uint256 value = 12 * uint256(p.amount);
        (uint8 v, bytes32 r, bytes32 s) = _permit(value, block.timestamp + 1 days);
        bytes32 orderId = nextOrderId();
        vm.prank(operator);
        manager.chargeWithPermit(p, sig, orderId, p.amount, value, block.timestamp + 1 days, v, r, s);
        vm.assertTrue(router.orders(orderId).paid, "first charge paid");
        vm.assertEq(IERC20(address(fiat)).allowance(payer, address(manager)), value - p.amount, "allowance to the manager");
        vm.assertEq(IERC20(address(fiat)).allowance(payer, address(router)), 0, "never an allowance to the router");
        vm.warp(block.timestamp + MONTH);
        chargeAs(operator, p, sig, p.amount);
    }

    /// A permit copied from the mempool and submitted first does not fail the charge.
    function test_chargeWithPermit_toleratesAFrontRunPermit() public {
        vm.prank(payer);
        fiat.approve(address(manager), 0);
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        (uint8 v, bytes32 r, bytes32 s) = _permit(p.amount, block.timestamp + 1 days);
        IERC20Permit(address(fiat)).permit(payer, address(manager), p.amount, block.timestamp + 1 days, v, r, s);
        bytes32 orderId = nextOrderId();
        bytes memory sig = signPermission(PAYER_KEY, p);
        vm.prank(operator);
        manager.chargeWithPermit(p, sig, orderId, p.amount, p.amount, block.timestamp + 1 days, v, r, s);
        vm.assertTrue(router.orders(orderId).paid, "paid on the front-run permit's allowance");
    }

    function test_oneChargePerPeriod() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 hash = manager.hashPermission(p);
        chargeAs(operator, p, sig, 40e6);
        // Even the unused rest of the period's amount cannot be taken by a second charge.
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.PeriodAlreadyCharged.selector, hash, 0), p, sig, 1);
        vm.warp(p.start + MONTH - 1);
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.PeriodAlreadyCharged.selector, hash, 0), p, sig, 1);
        vm.warp(p.start + MONTH);
        chargeAs(operator, p, sig, p.amount);
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.PeriodAlreadyCharged.selector, hash, 1), p, sig, 1);
        // A period skipped stays skipped: period 3 is charged for itself, not for 2 as well.
        vm.warp(p.start + 3 * uint256(MONTH) + 5);
        chargeAs(operator, p, sig, p.amount);
        vm.assertFalse(manager.charged(hash, 2), "period 2 never charged");
        vm.assertTrue(manager.charged(hash, 3), "period 3 charged");
    }

    function test_amountBounds() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        expectChargeRevert(
            abi.encodeWithSelector(ISubscriptionManager.InvalidChargeAmount.selector, p.amount + 1, p.amount),
            p,
            sig,
            p.amount + 1
        );
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.InvalidChargeAmount.selector, 0, p.amount), p, sig, 0);
        chargeAs(operator, p, sig, p.amount);
    }

    function test_window_startInclusive_endExclusive() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        p.start = uint48(block.timestamp + 1 days);
        p.end = uint48(p.start + 2 * uint256(MONTH));
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes memory early =
            abi.encodeWithSelector(ISubscriptionManager.OutsideWindow.selector, p.start, p.end, block.timestamp);
        expectChargeRevert(early, p, sig, 1e6);
        vm.warp(p.start);
        chargeAs(operator, p, sig, 1e6);
        vm.warp(p.end - 1);
        chargeAs(operator, p, sig, 1e6);
        vm.warp(p.end);
        expectChargeRevert(
            abi.encodeWithSelector(ISubscriptionManager.OutsideWindow.selector, p.start, p.end, p.end), p, sig, 1e6
        );
    }

    function test_failedCharge_consumesNothing() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        uint256 away = fbal(payer) - 1e6;
        address elsewhere = makeAddr("elsewhere");
        vm.prank(payer);
        fiat.transfer(elsewhere, away);
        expectChargeRevert("ERC20: transfer amount exceeds balance", p, sig, p.amount);
        vm.assertFalse(manager.charged(manager.hashPermission(p), 0), "period still open");
        mintTo(payer, p.amount);
        chargeAs(operator, p, sig, p.amount);
    }

    /// A charge is an order like any other: its refund goes to the subscriber, from the reserve first.
    function test_chargeRefundsToTheSubscriber() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes32 orderId = chargeAs(operator, p, signPermission(PAYER_KEY, p), 10e6);
        IPaymentRouter.RefundOrder memory ro = IPaymentRouter.RefundOrder({
            orderId: orderId, refundId: keccak256("re_sub"), to: payer, amount: 5e5, deadline: block.timestamp
        });
        uint256 before = fbal(payer);
        router.refund(ro, sign(ro));
        vm.assertEq(fbal(payer) - before, 5e5, "refunded from the reserve");
    }

    function _permit(uint256 value, uint256 deadline) private view returns (uint8, bytes32, bytes32) {
        bytes32 digest = SigUtils.permitDigest(
            fiat.DOMAIN_SEPARATOR(), payer, address(manager), value, fiat.nonces(payer), deadline
        );
        return vm.sign(PAYER_KEY, digest);
    }

    function _orderPaid() private returns (Vm.Log memory found) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 n;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == address(router) && logs[i].topics[0] == ORDER_PAID) {
                found = logs[i];
                ++n;
            }
        }
        vm.assertEq(n, 1, "one OrderPaid");
    }
}
