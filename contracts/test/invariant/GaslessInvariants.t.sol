// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {FiatInvariantBase} from "./FiatInvariantBase.sol";
import {GaslessHandler} from "./GaslessHandler.sol";

/// @notice Invariant campaign (and a deterministic walk) over gasless and classic payments with Circle's USDC.
contract GaslessInvariantsTest is FiatInvariantBase {
    GaslessHandler internal handler;

    function setUp() public {
        _deployRouterAndFiat();
        handler = new GaslessHandler(router, fiat, owner, operator, roles.blacklister, roles.pauser);
        _fundAndTarget(handler);
        bytes4[] memory s = new bytes4[](8);
        (s[0], s[1], s[2], s[3]) =
        (
            handler.newOrder.selector,
            handler.payGasless.selector,
            handler.payClassic.selector,
            handler.cancelOrder.selector
        );
        (s[4], s[5], s[6], s[7]) =
        (
            handler.warp.selector,
            handler.setBlacklisted.selector,
            handler.setTokenPaused.selector,
            handler.setRouterPaused.selector
        );
        targetSelector(FuzzSelector({addr: address(handler), selectors: s}));
    }

    /// forge-config: default.invariant.runs = 48
    function invariant_gaslessBooks() public view {
        _check();
    }

    /// A fixed sequence that makes every fault and every guard happen at least once, and both paths succeed.
    function test_walk_everyOutcome() public {
        // _pick(seed) with seed % 4 != 0 takes the (seed >> 2)-th newest order: 1 = newest, 5 = the one before.
        handler.newOrder(10e6, 1); // open order (index 0)
        handler.newOrder(20e6, 4); // locked to payer(1) (index 1)
        handler.payGasless(5, 0, 1); // another order's nonce
        handler.payGasless(5, 0, 2); // outlives the order
        handler.payGasless(5, 0, 3); // expired
        handler.payGasless(5, 0, 4); // stranger's signature
        handler.payGasless(5, 0, 5); // another amount
        handler.payGasless(1, 0, 0); // locked order, wrong from
        handler.setTokenPaused(0);
        handler.payGasless(5, 0, 0); // token paused
        handler.setTokenPaused(1);
        handler.setBlacklisted(0, 0);
        handler.payGasless(5, 0, 0); // payer blacklisted
        handler.setBlacklisted(0, 1);
        handler.setRouterPaused(0);
        handler.payGasless(5, 0, 0); // router paused
        handler.setRouterPaused(1);
        handler.payGasless(5, 0, 0); // pays the open order
        handler.payClassic(5, 1); // AlreadyPaid
        handler.payGasless(5, 2, 0); // AlreadyPaid
        handler.payGasless(1, 1, 0); // the locked payer pays gaslessly
        handler.newOrder(30e6, 3);
        handler.payClassic(1, 2); // classic pays it
        handler.newOrder(40e6, 5);
        handler.cancelOrder(1);
        handler.payGasless(1, 0, 0); // cancelled
        handler.newOrder(50e6, 8); // locked to payer(2), lives 1 hour
        for (uint256 i; i < 4; ++i) {
            handler.warp(20 minutes);
        }
        handler.payGasless(1, 2, 0); // expired order
        for (uint256 f; f < 6; ++f) {
            if (f == 0) continue;
            vm.assertGt(handler.gaslessRevertsByFault(f), 0, string.concat("fault ", vm.toString(f), " refused"));
        }
        GaslessHandler.Stats memory g = handler.stats(uint256(GaslessHandler.Action.PayGasless));
        vm.assertEq(g.succeeded, 2, "gasless successes");
        vm.assertEq(g.unexpected, 0, handler.lastUnexpected());
        vm.assertEq(handler.stats(uint256(GaslessHandler.Action.PayClassic)).succeeded, 1, "classic success");
        _check();
    }

    /// 400 pseudo-random handler calls with the campaign's action mix: both paths succeed and are refused
    ///  often, so the campaign's runs are not all reverts; the books hold throughout.
    function test_randomMix_isProductive() public {
        for (uint256 i; i < 400; ++i) {
            uint256 r = uint256(keccak256(abi.encode("mix", i)));
            uint256 a = r % 8;
            uint256 x = r >> 8;
            uint256 y = r >> 80;
            uint256 z = r >> 160;
            if (a == 0) handler.newOrder(x, y);
            else if (a == 1) handler.payGasless(x, y, z);
            else if (a == 2) handler.payClassic(x, y);
            else if (a == 3) handler.cancelOrder(x);
            else if (a == 4) handler.warp(x);
            else if (a == 5) handler.setBlacklisted(x, y);
            else if (a == 6) handler.setTokenPaused(x);
            else handler.setRouterPaused(x);
            if (i % 50 == 49) _check();
        }
        GaslessHandler.Stats memory g = handler.stats(uint256(GaslessHandler.Action.PayGasless));
        GaslessHandler.Stats memory c = handler.stats(uint256(GaslessHandler.Action.PayClassic));
        vm.assertGe(g.succeeded, 5, "gasless payments succeeded");
        vm.assertGe(g.reverted, 5, "gasless payments refused as predicted");
        vm.assertGe(c.succeeded, 5, "classic payments succeeded");
        vm.assertEq(g.unexpected + c.unexpected, 0, handler.lastUnexpected());
        _check();
    }

    function _check() internal view {
        uint256 sumReserve = _checkOrders(handler);
        uint256 n = handler.orderCount();
        for (uint256 i; i < n; ++i) {
            IPaymentRouter.PayOrder memory o = handler.orderAt(i);
            vm.assertFalse(router.orders(o.orderId).paid && router.orderCancelled(o.orderId), "cancelled order paid");
            // The authorization nonce is burnt exactly when the order was paid gaslessly, and only for its payer.
            for (uint256 p; p < 3; ++p) {
                bool expectBurnt =
                    handler.ghostPaidGasless(o.orderId) && handler.ghostPayer(o.orderId) == handler.payer(p);
                vm.assertEq(
                    fiat.authorizationState(handler.payer(p), router.hashPayOrder(o)), expectBurnt, "nonce state"
                );
            }
        }
        uint256 routerBalance = fiat.balanceOf(address(router));
        vm.assertEq(routerBalance, router.reserved(address(fiat)), "router holds exactly the reserves");
        vm.assertEq(routerBalance, sumReserve, "reserves sum");
        vm.assertEq(routerBalance, handler.ghostReserve(), "reserves as modelled");
        _checkHoldings(handler);
        vm.assertEq(fiat.totalSupply(), supply, "supply");
        for (uint256 a; a < handler.ACTION_COUNT(); ++a) {
            GaslessHandler.Stats memory s = handler.stats(a);
            vm.assertEq(s.attempted, s.succeeded + s.reverted + s.skipped + s.unexpected, "counters add up");
            vm.assertEq(s.unexpected, 0, handler.lastUnexpected());
        }
    }
}
