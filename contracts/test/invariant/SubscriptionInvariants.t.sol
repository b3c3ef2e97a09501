// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ISubscriptionManager} from "../../src/ISubscriptionManager.sol";
import {SubscriptionManager} from "../../src/SubscriptionManager.sol";
import {CircleUSDC} from "../utils/CircleUSDC.sol";
import {FiatInvariantBase} from "./FiatInvariantBase.sol";
import {SubscriptionHandler} from "./SubscriptionHandler.sol";

/// @notice Invariant campaign (and a deterministic walk) over subscription charges and revocations across warped
///         periods, with Circle's USDC: per permission Σ charged <= amount × periods begun, never two charges in
///         one period, none after a revocation, none by a stranger or with a tampered permission, every outcome
///         as modelled, and the router's balance >= reserved + held.
contract SubscriptionInvariantsTest is FiatInvariantBase {
    uint256 internal constant FUNDS = 1e13;

    SubscriptionManager internal manager;
    SubscriptionHandler internal handler;
    address[2] internal payers;

    function setUp() public {
        _deployRouterAndFiat();
        manager = new SubscriptionManager(router);
        vm.prank(owner);
        router.setModule(address(manager), true);
        uint256[2] memory keys = [uint256(0xC0FFEE), 0xC0FFEF];
        handler = new SubscriptionHandler(router, fiat, manager, owner, operator, keys);
        address[] memory holders = new address[](2);
        for (uint256 i; i < 2; ++i) {
            payers[i] = vm.addr(keys[i]);
            holders[i] = payers[i];
            vm.prank(payers[i]);
            fiat.approve(address(manager), type(uint256).max);
        }
        CircleUSDC.mint(fiat, roles.masterMinter, makeAddr("usdc minter"), holders, FUNDS);
        targetContract(address(handler));
        bytes4[] memory s = new bytes4[](5);
        (s[0], s[1], s[2], s[3], s[4]) = (
            handler.charge.selector,
            handler.chargeForged.selector,
            handler.revoke.selector,
            handler.warp.selector,
            handler.togglePause.selector
        );
        targetSelector(FuzzSelector({addr: address(handler), selectors: s}));
    }

    /// forge-config: default.invariant.runs = 48
    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_subscriptionBounds() public view {
        _check();
    }

    /// A fixed walk through every outcome: charges in consecutive and skipped periods, a second charge in a
    /// period, too much, before the start, after the end, while paused, forged, after each kind of revocation.
    function test_walk_everyOutcome() public {
        handler.charge(0, 10e6); // perm 0 (daily, 10 USDC), period 0
        handler.charge(0, 1); // second charge in period 0: refused
        handler.charge(0, 10e6 + 1); // period 0 again (the period check comes before the amount): refused
        handler.charge(1, 5e6); // perm 1 starts tomorrow: refused
        handler.chargeForged(0, 0); // stranger
        handler.chargeForged(0, 1); // tampered merchant
        handler.togglePause(0);
        handler.warp(1 days);
        handler.charge(0, 3e6); // paused: refused
        handler.togglePause(0);
        handler.charge(0, 3e6); // period 1
        handler.charge(1, 25e6 + 1); // perm 1, period 0: more than the amount, refused
        handler.charge(1, 25e6); // perm 1, period 0
        handler.warp(20 days);
        handler.warp(20 days);
        handler.charge(3, 1_000_007); // perm 3 (2 × 3 days) has ended: refused
        handler.charge(2, 100e6); // perm 2 (monthly), period 1: period 0 was skipped
        handler.revoke(0, 0); // payer revokes perm 0
        handler.revoke(2, 4); // operator revokes perm 2
        handler.warp(20 days);
        handler.charge(0, 1e6); // revoked: refused
        handler.charge(2, 1e6); // revoked: refused
        vm.assertEq(handler.charges(), 4, "charges that went through");
        vm.assertEq(handler.refused(), 8, "charges refused as predicted");
        _check();
    }

    function _check() internal view {
        vm.assertEq(handler.unexpected(), 0, handler.lastUnexpected());
        vm.assertEq(handler.doubleCharges(), 0, "two charges in one period");
        vm.assertEq(handler.chargesAfterRevoke(), 0, "a charge after revocation");
        vm.assertEq(handler.forgedSuccesses(), 0, "a stranger's or tampered charge went through");
        uint256[2] memory debited;
        for (uint256 i; i < handler.PERMS(); ++i) {
            ISubscriptionManager.SpendPermission memory p = handler.perm(i);
            uint256 total = handler.ghostTotal(i);
            vm.assertLe(total, uint256(p.amount) * handler.periodsBegun(i), "charged more than amount x periods");
            vm.assertEq(manager.revoked(handler.hashes(i)), handler.ghostRevoked(i), "revoked as modelled");
            debited[p.payer == payers[0] ? 0 : 1] += total;
        }
        for (uint256 k; k < 2; ++k) {
            vm.assertEq(FUNDS - fiat.balanceOf(payers[k]), debited[k], "payer debited exactly the charges");
        }
        uint256 balance = fiat.balanceOf(address(router));
        vm.assertGe(balance, router.reserved(address(fiat)) + router.held(address(fiat)), "balance >= reserved + held");
        vm.assertEq(balance, handler.ghostReserve(), "router holds exactly the charges' reserves");
        vm.assertEq(fiat.balanceOf(address(manager)), 0, "the manager holds nothing");
        vm.assertEq(IERC20(address(fiat)).allowance(address(manager), address(router)), 0, "no allowance left");
    }
}
