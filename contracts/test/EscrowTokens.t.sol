// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {FeeOnTransferToken} from "./mocks/FeeOnTransferToken.sol";
import {ReentrantToken} from "./mocks/ReentrantToken.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";

/// @notice Hostile tokens against authorizations: a token that calls back into the router from a capture's or a
///         reclaim's transfer meets the guard, and one that delivers less than it was asked cannot be authorized.
contract EscrowTokensTest is EscrowTestBase {
    ReentrantToken internal ren;

    function setUp() public override {
        super.setUp();
        ren = new ReentrantToken();
        ren.mint(buyer, 1_000e6);
        vm.prank(buyer);
        ren.approve(address(router), type(uint256).max);
    }

    function renAuth() internal returns (IPaymentRouter.PayOrder memory o) {
        o = authOrder(address(ren), 100e6, S_BPS, P_BPS, R_BPS);
        authorize(o);
    }

    /// reclaim is open to anyone, so the token's callback passes every caller check and meets the guard.
    function test_RevertWhen_ReentrantReclaimInsideCapture() public {
        IPaymentRouter.PayOrder memory o = renAuth();
        IPaymentRouter.PayOrder memory other = renAuth();
        ren.arm(address(router), abi.encodeCall(router.reclaim, (other.orderId)));
        vm.prank(operator);
        vm.expectRevert(ReentrancyGuard.ReentrancyGuardReentrantCall.selector);
        router.capture(o, 100e6, 1e6, 5e6, 9.4e6);
        vm.assertEq(router.held(address(ren)), 200e6, "both still held");
        vm.assertEq(IERC20(address(ren)).balanceOf(address(router)), 200e6, "router balance");
    }

    function test_RevertWhen_ReentrantReclaim() public {
        IPaymentRouter.PayOrder memory o = renAuth();
        vm.warp(o.captureDeadline);
        ren.arm(address(router), abi.encodeCall(router.reclaim, (o.orderId)));
        vm.expectRevert(ReentrancyGuard.ReentrancyGuardReentrantCall.selector);
        router.reclaim(o.orderId);
        vm.assertEq(router.orders(o.orderId).authorized, 100e6, "still held");
    }

    function test_RevertWhen_FeeOnTransferAuthorization() public {
        FeeOnTransferToken fot = new FeeOnTransferToken();
        fot.mint(buyer, 1_000e6);
        vm.prank(buyer);
        fot.approve(address(router), type(uint256).max);
        IPaymentRouter.PayOrder memory o = authOrder(address(fot), 100e6, S_BPS, P_BPS, R_BPS);
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.BalanceDeltaMismatch.selector, 100e6, 99e6));
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertEq(router.held(address(fot)), 0, "nothing held");
    }
}
