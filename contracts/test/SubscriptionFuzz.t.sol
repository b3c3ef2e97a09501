// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ISubscriptionManager} from "../src/ISubscriptionManager.sol";
import {SubscriptionTestBase} from "./utils/SubscriptionTestBase.sol";

/// @notice Fuzzed charges with Circle's USDC: the legs the parties receive are the floors of the signed basis
///         points, add up to the charge, and equal the manager's split view; the period index follows the clock.
contract SubscriptionFuzzTest is SubscriptionTestBase {
    function testFuzz_splitLegsSumToTheChargeAndMatchTheFormula(
        uint256 max,
        uint256 amount,
        uint256 sBps,
        uint256 pBps,
        uint256 rBps
    ) public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        p.amount = uint160(bound(max, 1, FUNDS));
        amount = bound(amount, 1, p.amount);
        p.serviceFeeBps = uint16(bound(sBps, 0, 10_000));
        p.platformFeeBps = uint16(bound(pBps, 0, 10_000 - p.serviceFeeBps));
        p.reserveBps = uint16(bound(rBps, 0, 10_000));
        uint256 payerBefore = fbal(payer);
        chargeAs(operator, p, signPermission(PAYER_KEY, p), amount);

        uint256 s = amount * p.serviceFeeBps / 10_000;
        uint256 pf = amount * p.platformFeeBps / 10_000;
        uint256 r = (amount - s - pf) * p.reserveBps / 10_000;
        vm.assertEq(fbal(treasury), s, "service fee = floor(amount * sBps / 1e4)");
        vm.assertEq(fbal(platform), pf, "platform fee = floor(amount * pBps / 1e4)");
        vm.assertEq(fbal(address(router)), r, "reserve = floor((amount - fees) * rBps / 1e4)");
        vm.assertEq(fbal(merchant), amount - s - pf - r, "merchant gets the rest");
        vm.assertEq(fbal(treasury) + fbal(platform) + fbal(address(router)) + fbal(merchant), amount, "legs sum");
        vm.assertEq(payerBefore - fbal(payer), amount, "payer debited the charge");
        (uint256 vs, uint256 vp, uint256 vr) = manager.split(p, amount);
        vm.assertEq(vs, s, "split view: service");
        vm.assertEq(vp, pf, "split view: platform");
        vm.assertEq(vr, r, "split view: reserve");
    }

    function testFuzz_periodIndexFollowsTheClock(uint256 period, uint256 offset) public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        p.period = uint32(bound(period, 1, 400 days));
        p.end = type(uint48).max;
        offset = bound(offset, 0, 20 * 365 days);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 hash = manager.hashPermission(p);
        vm.warp(p.start + offset);
        uint256 index = offset / p.period;
        chargeAs(operator, p, sig, 1);
        vm.assertTrue(manager.charged(hash, index), "this period charged");
        expectChargeRevert(
            abi.encodeWithSelector(ISubscriptionManager.PeriodAlreadyCharged.selector, hash, index), p, sig, 1
        );
        vm.warp(p.start + (index + 1) * p.period);
        chargeAs(operator, p, sig, 1);
        vm.assertTrue(manager.charged(hash, index + 1), "next period charged");
    }
}
