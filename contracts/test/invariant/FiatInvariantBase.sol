// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {CircleUSDC, IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {TestBase} from "../utils/TestBase.sol";
import {GaslessHandler} from "./GaslessHandler.sol";

/// @notice The router and Circle's USDC as the Circle-USDC invariant campaigns (gasless, x402, subscriptions)
///         deploy them, and the books the gasless and x402 campaigns check alike: each order paid, by whom and
///         with what reserve as the handler modelled, each payer's balance as modelled, and all USDC accounted for.
abstract contract FiatInvariantBase is TestBase {
    PaymentRouter internal router;
    IFiatTokenV2_2 internal fiat;
    CircleUSDC.Roles internal roles;
    address internal owner;
    address internal operator;
    address internal treasury;
    uint256 internal supply; // all USDC minted, which the parties hold between them

    /// @dev At a fixed time: a router with a 2-day hold and signer 0xA11CE, and USDC with the test roles.
    function _deployRouterAndFiat() internal {
        vm.warp(1_750_000_000);
        owner = makeAddr("owner");
        operator = makeAddr("operator");
        treasury = makeAddr("treasury");
        router = new PaymentRouter(owner, vm.addr(0xA11CE), operator, treasury, 2 days);
        roles = CircleUSDC.testRoles();
        fiat = CircleUSDC.deploy(roles);
    }

    /// @dev Mints 1e15 to each of the handler's three payers, lets it book their balances, and targets it.
    function _fundAndTarget(GaslessHandler h) internal {
        address[] memory payers = new address[](3);
        for (uint256 i; i < 3; ++i) {
            payers[i] = h.payer(i);
        }
        CircleUSDC.mint(fiat, roles.masterMinter, makeAddr("usdc minter"), payers, 1e15);
        h.syncBalances();
        supply = fiat.totalSupply();
        targetContract(address(h));
    }

    /// @dev Each order paid as modelled, a paid one by the modelled payer with its signed reserve; Σ reserves.
    function _checkOrders(GaslessHandler h) internal view returns (uint256 sumReserve) {
        uint256 n = h.orderCount();
        for (uint256 i; i < n; ++i) {
            IPaymentRouter.PayOrder memory o = h.orderAt(i);
            IPaymentRouter.Order memory rec = router.orders(o.orderId);
            vm.assertEq(rec.paid, h.ghostPaid(o.orderId), "paid as modelled");
            sumReserve += rec.reserve;
            if (rec.paid) {
                vm.assertEq(rec.payer, h.ghostPayer(o.orderId), "payer as modelled");
                vm.assertEq(rec.reserve, o.reserveHold, "reserve as signed");
            }
        }
    }

    /// @dev Each payer holds what the model says, the relayer nothing, and the router, the treasury, the platform,
    ///      the merchant and the payers hold the whole supply between them: no USDC created or lost.
    function _checkHoldings(GaslessHandler h) internal view {
        vm.assertEq(fiat.balanceOf(h.relayer()), 0, "relayer gets nothing");
        uint256 held = fiat.balanceOf(address(router)) + fiat.balanceOf(treasury) + fiat.balanceOf(h.platform())
            + fiat.balanceOf(h.merchant());
        for (uint256 p; p < 3; ++p) {
            vm.assertEq(fiat.balanceOf(h.payer(p)), h.ghostBalance(h.payer(p)), "payer balance");
            held += fiat.balanceOf(h.payer(p));
        }
        vm.assertEq(held, supply, "no USDC created or lost");
    }
}
