// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AuthUtils} from "../utils/AuthUtils.sol";
import {FiatInvariantBase} from "./FiatInvariantBase.sol";
import {GaslessHandler} from "./GaslessHandler.sol";
import {X402Handler} from "./X402Handler.sol";

/// @notice Invariant campaign (and deterministic walks) over x402 payments, front-runs, attributions and returns,
///         mixed with gasless and classic payments of the same orders, cancels, pauses and blacklists, on Circle's
///         USDC. The router always holds exactly reserved + what the model has unattributed, never less than
///         reserved + held, and every party's balance is what the model predicts. Per payer, what was attributed
///         plus what was returned never exceeds what that payer's front-runs moved into the router: cancelled
///         nonces and other transfers' proofs spend nothing.
contract X402InvariantsTest is FiatInvariantBase {
    X402Handler internal handler;

    function setUp() public {
        _deployRouterAndFiat();
        handler = new X402Handler(router, fiat, owner, operator, roles.blacklister, roles.pauser);
        _fundAndTarget(handler);
        bytes4[] memory s = new bytes4[](14);
        (s[0], s[1], s[2], s[3], s[4], s[5]) =
        (
            handler.newLockedOrder.selector,
            handler.payX402.selector,
            handler.frontRun.selector,
            handler.attribute.selector,
            handler.returnLanded.selector,
            handler.payClassic.selector
        );
        (s[6], s[7], s[8], s[9], s[10]) =
        (
            handler.cancelOrder.selector,
            handler.warp.selector,
            handler.setBlacklisted.selector,
            handler.setTokenPaused.selector,
            handler.setRouterPaused.selector
        );
        (s[11], s[12], s[13]) =
        (handler.prove.selector, handler.cancelAuthorization.selector, handler.attackCancelled.selector);
        targetSelector(FuzzSelector({addr: address(handler), selectors: s}));
    }

    /// forge-config: default.invariant.runs = 48
    function invariant_x402Books() public view {
        _check();
    }

    /// A fixed sequence in which every x402 fault and guard happens, and every path succeeds.
    function test_walk_everyX402Outcome() public {
        handler.newLockedOrder(10e6, 0); // order 0, payer(0)
        handler.newOrder(7e6, 1); // order 1, open
        handler.payX402(1, 0, 0); // PayerLockRequired
        handler.payX402(5, 1, 0); // WrongPayer
        handler.payX402(5, 0, 1); // outlives
        handler.payX402(5, 0, 2); // expired
        handler.payX402(5, 0, 3); // stranger
        handler.payX402(5, 0, 4); // another value
        handler.setRouterPaused(0);
        handler.payX402(5, 0, 0); // paused
        handler.setRouterPaused(1);
        handler.payX402(5, 0, 0); // pays order 0
        handler.payX402(5, 0, 5); // consumed nonce
        handler.newLockedOrder(20e6, 1); // order 2, payer(1)
        handler.frontRun(1, 1); // payer(1)'s authorization straight to USDC
        handler.payX402(1, 257, 6); // the token refuses the used nonce (landed #1)
        handler.attribute(1, 0, 2); // with the relayed payment's proof: NotAuthorizationUsed
        handler.attribute(1, 9, 1); // to order 0: WrongPayer
        handler.setRouterPaused(0);
        handler.attribute(1, 0, 0); // paused
        handler.setRouterPaused(1);
        handler.attribute(1, 0, 0); // attributed to order 2
        handler.attribute(1, 0, 0); // AlreadyPaid
        handler.returnLanded(1, 0); // consumed
        handler.frontRun(1, 1); // a second payment of order 2 lands
        handler.attribute(2, 0, 0); // AlreadyPaid
        handler.returnLanded(2, 1); // with another transfer's proof: NotAuthorizationUsed
        handler.returnLanded(2, 2); // by a stranger: NotPayerOrOperator
        handler.setTokenPaused(0);
        handler.returnLanded(2, 0); // token paused
        handler.cancelAuthorization(0); // skipped: the token is paused
        handler.setTokenPaused(1);
        handler.setRouterPaused(0);
        handler.returnLanded(2, 3); // returned by the payer itself, while the router is paused
        handler.setRouterPaused(1);
        handler.returnLanded(2, 0); // consumed
        handler.prove(0); // the relayed payment's arrival (consumed at payment: provable, never spendable)
        handler.prove(0); // idempotent
        handler.cancelAuthorization(0); // payer(0) cancels a nonce
        handler.attackCancelled(0, 10e6, 0); // attribute without a proof: ArrivalNotProven
        handler.attackCancelled(0, 10e6, 1); // attribute with another transfer's proof: NotAuthorizationUsed
        handler.attackCancelled(0, 10e6, 2); // return without a proof
        handler.attackCancelled(0, 10e6, 3); // return with another transfer's proof
        _check();
        uint256[8] memory minSucceeded = [uint256(2), 1, 2, 1, 1, 2, 1, 0];
        for (uint256 x; x < handler.X_ACTION_COUNT(); ++x) {
            GaslessHandler.Stats memory s = handler.xStats(x);
            vm.assertGe(s.succeeded, minSucceeded[x], string.concat("x402 action succeeded ", vm.toString(x)));
        }
        vm.assertGe(handler.xStats(uint256(X402Handler.X.PayX402)).reverted, 9, "pay refusals");
        vm.assertGe(handler.xStats(uint256(X402Handler.X.Attribute)).reverted, 5, "attribute refusals");
        vm.assertGe(handler.xStats(uint256(X402Handler.X.Return)).reverted, 5, "return refusals");
        vm.assertEq(handler.xStats(uint256(X402Handler.X.Attack)).reverted, 4, "attacks refused");
        vm.assertEq(handler.ghostUnattributed(), 0, "nothing left unattributed");
    }

    /// 600 pseudo-random calls with the campaign's mix: every x402 action succeeds and is refused as predicted.
    function test_randomMix_isProductive() public {
        for (uint256 i; i < 600; ++i) {
            uint256 r = uint256(keccak256(abi.encode("x402 mix", i)));
            uint256 a = r % 15;
            (uint256 x, uint256 y, uint256 z) = (r >> 8, r >> 80, r >> 160);
            if (a == 0) handler.newLockedOrder(x, y);
            else if (a <= 2) handler.payX402(x, y, z);
            else if (a == 3) handler.frontRun(x, y);
            else if (a == 4) handler.attribute(x, y, z);
            else if (a == 5) handler.returnLanded(x, y);
            else if (a == 6) handler.payClassic(x, y);
            else if (a == 7) handler.cancelOrder(x);
            else if (a == 8) handler.warp(x);
            else if (a == 9) handler.setBlacklisted(x, y);
            else if (a == 10) handler.setTokenPaused(x);
            else if (a == 11) handler.setRouterPaused(x);
            else if (a == 12) handler.prove(x);
            else if (a == 13) handler.cancelAuthorization(x);
            else handler.attackCancelled(x, y, z);
            if (i % 50 == 49) _check();
        }
        for (uint256 x = 1; x < handler.X_ACTION_COUNT(); ++x) {
            GaslessHandler.Stats memory s = handler.xStats(x);
            if (x == uint256(X402Handler.X.Attack)) {
                vm.assertEq(s.succeeded, 0, "no attack succeeds");
                vm.assertGe(s.reverted, 3, "attacks refused");
                continue;
            }
            vm.assertGe(s.succeeded, 3, string.concat("succeeded ", vm.toString(x)));
            if (x == uint256(X402Handler.X.Attribute) || x == uint256(X402Handler.X.Return)) {
                vm.assertGe(s.reverted, 3, string.concat("refused as predicted ", vm.toString(x)));
            }
        }
        _check();
    }

    function _check() internal view {
        uint256 sumReserve = _checkOrders(handler);
        for (uint256 i; i < handler.landedCount(); ++i) {
            (AuthUtils.Authorization memory a, bool consumed, bool proven) = handler.landedAt(i);
            vm.assertEq(router.x402Consumed(a.from, a.nonce), consumed, "consumed as modelled");
            vm.assertTrue(fiat.authorizationState(a.from, a.nonce), "landed nonce used at the token");
            vm.assertEq(router.arrived(address(fiat), a.from, a.nonce), proven ? a.value : 0, "arrival as modelled");
        }
        for (uint256 i; i < handler.cancelledCount(); ++i) {
            (address from, bytes32 nonce) = handler.cancelledAt(i);
            vm.assertEq(router.arrived(address(fiat), from, nonce), 0, "a cancelled nonce never arrives");
            vm.assertFalse(router.x402Consumed(from, nonce), "a cancelled nonce is never spent");
        }
        for (uint256 p; p < handler.payerCount(); ++p) {
            address who = handler.payerAt(p);
            vm.assertLe(
                handler.ghostAttributed(who) + handler.ghostReturned(who),
                handler.ghostArrived(who),
                "per payer: attributed + returned <= arrived"
            );
        }
        uint256 routerBalance = fiat.balanceOf(address(router));
        uint256 reserved = router.reserved(address(fiat));
        vm.assertGe(routerBalance, reserved + router.held(address(fiat)), "balance >= reserved + held");
        vm.assertEq(reserved, sumReserve, "reserves sum");
        vm.assertEq(reserved, handler.ghostReserve(), "reserves as modelled");
        vm.assertEq(routerBalance, reserved + handler.ghostUnattributed(), "router = reserved + unattributed");
        _checkHoldings(handler);
        for (uint256 a; a < handler.ACTION_COUNT(); ++a) {
            vm.assertEq(handler.stats(a).unexpected, 0, handler.lastUnexpected());
        }
        for (uint256 x; x < handler.X_ACTION_COUNT(); ++x) {
            GaslessHandler.Stats memory s = handler.xStats(x);
            vm.assertEq(s.attempted, s.succeeded + s.reverted + s.skipped + s.unexpected, "counters add up");
            vm.assertEq(s.unexpected, 0, handler.lastUnexpected());
        }
    }
}
