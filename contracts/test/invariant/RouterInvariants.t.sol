// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {TestBase} from "../utils/TestBase.sol";
import {RouterHandler} from "./RouterHandler.sol";

contract RouterInvariantsTest is TestBase {
    PaymentRouter internal router;
    TestUSDC internal usdc;
    RouterHandler internal handler;

    function setUp() public {
        vm.warp(1_750_000_000);
        address operator = makeAddr("operator");
        router = new PaymentRouter(address(this), vm.addr(0xA11CE), operator, makeAddr("treasury"), 7 days);
        usdc = new TestUSDC(address(this));
        handler = new RouterHandler(router, usdc, operator);
        for (uint256 i; i < 4; ++i) {
            usdc.mint(handler.actor(i), 1e18);
        }
        usdc.mint(handler.funder(), 1e18);

        bytes4[] memory selectors = new bytes4[](5);
        selectors[0] = RouterHandler.pay.selector;
        selectors[1] = RouterHandler.payAgain.selector;
        selectors[2] = RouterHandler.refund.selector;
        selectors[3] = RouterHandler.settle.selector;
        selectors[4] = RouterHandler.warp.selector;
        targetContract(address(handler));
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    /// The router's balance is exactly the reserves it still owes: nothing leaks in or out of the books.
    function invariant_RouterHoldsOnlyReserves() public view {
        uint256 sum;
        uint256 n = handler.orderCount();
        for (uint256 i; i < n; ++i) {
            sum += router.orders(handler.orderIds(i)).reserve;
        }
        uint256 balance = usdc.balanceOf(address(router));
        vm.assertEq(balance, sum, "balance == sum of recorded reserves");
        vm.assertEq(balance, handler.ghostReserve(), "balance == ghost reserves");
    }

    function invariant_NoOrderPaidTwice() public view {
        vm.assertEq(handler.ghostDoublePays(), 0, "an orderId was paid twice");
    }

    function invariant_RefundedNeverExceedsAmount() public view {
        vm.assertEq(handler.ghostOverRefunds(), 0, "a refund went past the order amount");
        uint256 n = handler.orderCount();
        for (uint256 i; i < n; ++i) {
            IPaymentRouter.Order memory o = router.orders(handler.orderIds(i));
            vm.assertLe(o.refunded, o.amount, "refunded <= amount");
            vm.assertLe(o.reserve, o.amount - o.refunded, "reserve <= what is left");
        }
    }
}
