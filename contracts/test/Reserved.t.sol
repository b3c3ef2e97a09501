// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {BlocklistToken} from "./mocks/BlocklistToken.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice reserved(token) follows every move of a reserve, and recoverExcess moves out exactly what the
///         router holds beyond it (tokens sent to it directly), never a reserve.
contract ReservedTest is RouterTestBase {
    address internal rescue;

    function setUp() public override {
        super.setUp();
        rescue = makeAddr("rescue");
    }

    function _reserved() internal view returns (uint256) {
        return router.reserved(address(usdc));
    }

    function test_Reserved_FollowsPayRefundRelease() public {
        IPaymentRouter.PayOrder memory a = defaultOrder();
        IPaymentRouter.PayOrder memory b = defaultOrder();
        pay(a);
        vm.assertEq(_reserved(), 9.4e6, "after one payment");
        pay(b);
        vm.assertEq(_reserved(), 18.8e6, "after two");

        IPaymentRouter.RefundOrder memory r = refundOrder(a.orderId, 4e6);
        router.refund(r, sign(r));
        vm.assertEq(_reserved(), 14.8e6, "a refund from the reserve lowers it");

        address funder = makeAddr("funder");
        usdc.mint(funder, 100e6);
        IPaymentRouter.RefundOrder memory big = refundOrder(a.orderId, 10e6); // 5.4 from reserve, 4.6 funded
        bytes memory sig = sign(big);
        vm.startPrank(funder);
        usdc.approve(address(router), type(uint256).max);
        router.refund(big, sig);
        vm.stopPrank();
        vm.assertEq(_reserved(), 9.4e6, "only the reserve part counts");
        vm.assertEq(router.orders(a.orderId).reserve, 0, "a's reserve spent");

        warpPastHold(b.orderId);
        vm.prank(operator);
        router.settleBatch(keccak256("stl_r"), ids1(b.orderId));
        vm.assertEq(_reserved(), 0, "release empties it");
        vm.assertEq(bal(address(router)), 0, "and the balance");
    }

    function test_Reserved_KeptWhenReleaseFails() public {
        BlocklistToken blk = new BlocklistToken();
        blk.mint(buyer, 1_000e6);
        vm.prank(buyer);
        blk.approve(address(router), type(uint256).max);
        IPaymentRouter.PayOrder memory o = splitOrder(address(blk), 100e6, 100, 500, 1000);
        pay(o);
        vm.assertEq(router.reserved(address(blk)), 9.4e6, "reserved in its own token");
        vm.assertEq(_reserved(), 0, "not in USDC");

        blk.setBlocked(merchant, true);
        warpPastHold(o.orderId);
        vm.prank(operator);
        router.settleBatch(keccak256("stl_blk1"), ids1(o.orderId));
        vm.assertEq(router.reserved(address(blk)), 9.4e6, "failed release keeps it reserved");
        vm.assertEq(blk.balanceOf(address(router)), 9.4e6, "and held");

        // Nothing is excess while the reserve is owed, so the owner cannot sweep a stuck reserve.
        vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
        vm.prank(owner);
        router.recoverExcess(address(blk), rescue);

        blk.setBlocked(merchant, false);
        vm.prank(operator);
        router.settleBatch(keccak256("stl_blk2"), ids1(o.orderId));
        vm.assertEq(router.reserved(address(blk)), 0, "retried release");
        vm.assertEq(blk.balanceOf(address(router)), 0, "paid out");
    }

    function test_RecoverExcess() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        vm.prank(buyer);
        IERC20(address(usdc)).transfer(address(router), 3e6); // sent to the router by mistake
        vm.assertEq(bal(address(router)), 12.4e6, "balance above reserved");

        vm.expectEmit();
        emit IPaymentRouter.ExcessRecovered(address(usdc), rescue, 3e6);
        vm.prank(owner);
        router.recoverExcess(address(usdc), rescue);
        vm.assertEq(bal(rescue), 3e6, "exactly balance - reserved");
        vm.assertEq(bal(address(router)), 9.4e6, "reserve stays");
        vm.assertEq(_reserved(), 9.4e6, "reserved unchanged");
        vm.assertEq(router.orders(o.orderId).reserve, 9.4e6, "order reserve unchanged");

        // The reserve is still releasable in full after the recovery.
        warpPastHold(o.orderId);
        vm.prank(operator);
        router.settleBatch(keccak256("stl_after_recover"), ids1(o.orderId));
        vm.assertEq(bal(address(router)), 0, "released");
    }

    function test_RecoverExcess_OtherToken() public {
        BlocklistToken stray = new BlocklistToken();
        stray.mint(address(router), 5e6);
        pay(defaultOrder());
        vm.prank(owner);
        router.recoverExcess(address(stray), rescue);
        vm.assertEq(stray.balanceOf(rescue), 5e6, "a token with no reserves is all excess");
        vm.assertEq(bal(address(router)), 9.4e6, "USDC reserves untouched");
    }

    function test_RecoverExcess_AfterRefundsAndRelease() public {
        IPaymentRouter.PayOrder memory a = defaultOrder();
        IPaymentRouter.PayOrder memory b = defaultOrder();
        pay(a);
        pay(b);
        usdc.mint(address(router), 1); // one stray unit
        IPaymentRouter.RefundOrder memory r = refundOrder(a.orderId, 9.4e6);
        router.refund(r, sign(r));
        warpPastHold(b.orderId);
        vm.prank(operator);
        router.settleBatch(keccak256("stl_x"), ids1(b.orderId));
        vm.prank(owner);
        router.recoverExcess(address(usdc), rescue);
        vm.assertEq(bal(rescue), 1, "only the stray unit");
        vm.assertEq(bal(address(router)), 0, "balance == reserved == 0");
    }

    function test_RevertWhen_RecoverExcessNothingExtra() public {
        pay(defaultOrder());
        vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
        vm.prank(owner);
        router.recoverExcess(address(usdc), rescue);
        vm.assertEq(bal(address(router)), 9.4e6, "reserve untouched");
    }

    function test_RevertWhen_RecoverExcessTwice() public {
        pay(defaultOrder());
        usdc.mint(address(router), 2e6);
        vm.startPrank(owner);
        router.recoverExcess(address(usdc), rescue);
        vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
        router.recoverExcess(address(usdc), rescue);
        vm.stopPrank();
        vm.assertEq(bal(rescue), 2e6, "recovered once");
    }

    function test_RevertWhen_RecoverExcessNotOwner() public {
        usdc.mint(address(router), 2e6);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, operator));
        vm.prank(operator);
        router.recoverExcess(address(usdc), operator);
        vm.assertEq(bal(address(router)), 2e6, "nothing moved");
    }

    function test_RevertWhen_RecoverExcessToZero() public {
        usdc.mint(address(router), 2e6);
        vm.expectRevert(IPaymentRouter.ZeroAddress.selector);
        vm.prank(owner);
        router.recoverExcess(address(usdc), address(0));
    }

    function test_RecoverExcess_WhilePaused() public {
        // recoverExcess carries no whenNotPaused: the owner can clean up during an incident.
        usdc.mint(address(router), 2e6);
        vm.startPrank(owner);
        router.pause();
        router.recoverExcess(address(usdc), rescue);
        vm.stopPrank();
        vm.assertEq(bal(rescue), 2e6, "recovered while paused");
    }
}
