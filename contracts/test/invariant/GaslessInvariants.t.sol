// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {CircleUSDC, IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {TestBase} from "../utils/TestBase.sol";
import {GaslessHandler} from "./GaslessHandler.sol";

/// @notice Invariant campaign (and a deterministic walk) over gasless and classic payments with Circle's USDC.
contract GaslessInvariantsTest is TestBase {
    PaymentRouter internal router;
    IFiatTokenV2_2 internal fiat;
    GaslessHandler internal handler;
    uint256 internal supply;
    address internal treasury;

    function setUp() public {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address operator = makeAddr("operator");
        treasury = makeAddr("treasury");
        router = new PaymentRouter(owner, vm.addr(0xA11CE), operator, treasury, 2 days);
        CircleUSDC.Roles memory roles = CircleUSDC.Roles({
            proxyAdmin: makeAddr("usdc proxyAdmin"),
            masterMinter: makeAddr("usdc masterMinter"),
            pauser: makeAddr("usdc pauser"),
            blacklister: makeAddr("usdc blacklister"),
            owner: makeAddr("usdc owner"),
            lostAndFound: makeAddr("usdc lostAndFound")
        });
        fiat = CircleUSDC.deploy(roles);
        handler = new GaslessHandler(router, fiat, owner, operator, roles.blacklister, roles.pauser);
        address[] memory payers = new address[](3);
        for (uint256 i; i < 3; ++i) {
            payers[i] = handler.payer(i);
        }
        CircleUSDC.mint(fiat, roles.masterMinter, makeAddr("usdc minter"), payers, 1e15);
        handler.syncBalances();
        supply = fiat.totalSupply();
        targetContract(address(handler));
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
        uint256 n = handler.orderCount();
        uint256 sumReserve;
        for (uint256 i; i < n; ++i) {
            IPaymentRouter.PayOrder memory o = handler.orderAt(i);
            IPaymentRouter.Order memory rec = router.orders(o.orderId);
            vm.assertEq(rec.paid, handler.ghostPaid(o.orderId), "paid as modelled");
            vm.assertFalse(rec.paid && router.orderCancelled(o.orderId), "cancelled order paid");
            sumReserve += rec.reserve;
            if (rec.paid) {
                vm.assertEq(rec.payer, handler.ghostPayer(o.orderId), "payer as modelled");
                vm.assertEq(rec.reserve, o.reserveHold, "reserve as signed");
            }
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
        vm.assertEq(fiat.balanceOf(handler.relayer()), 0, "relayer gets nothing");
        uint256 held = routerBalance + fiat.balanceOf(treasury) + fiat.balanceOf(handler.platform())
            + fiat.balanceOf(handler.merchant());
        for (uint256 p; p < 3; ++p) {
            vm.assertEq(fiat.balanceOf(handler.payer(p)), handler.ghostBalance(handler.payer(p)), "payer balance");
            held += fiat.balanceOf(handler.payer(p));
        }
        vm.assertEq(held, supply, "no USDC created or lost");
        vm.assertEq(fiat.totalSupply(), supply, "supply");
        for (uint256 a; a < handler.ACTION_COUNT(); ++a) {
            GaslessHandler.Stats memory s = handler.stats(a);
            vm.assertEq(s.attempted, s.succeeded + s.reverted + s.skipped + s.unexpected, "counters add up");
            vm.assertEq(s.unexpected, 0, handler.lastUnexpected());
        }
    }
}
