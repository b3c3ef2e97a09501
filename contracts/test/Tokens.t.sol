// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {BlocklistToken} from "./mocks/BlocklistToken.sol";
import {FeeOnTransferToken} from "./mocks/FeeOnTransferToken.sol";
import {ReentrantToken} from "./mocks/ReentrantToken.sol";
import {RevertingToken} from "./mocks/RevertingToken.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice Hostile and unusual tokens: every failure leaves the buyer's funds with the buyer and the
///         router's books equal to its balance.
contract TokensTest is RouterTestBase {
    function _fund(address token) internal {
        (bool ok,) = token.call(abi.encodeWithSignature("mint(address,uint256)", buyer, 1_000e6));
        require(ok, "mint");
        vm.prank(buyer);
        IERC20(token).approve(address(router), type(uint256).max);
    }

    function _payWith(address token) internal returns (IPaymentRouter.PayOrder memory o, bytes memory sig) {
        o = splitOrder(token, 100e6, 100, 500, 1000);
        sig = sign(o);
    }

    function test_RevertWhen_FeeOnTransferToken() public {
        FeeOnTransferToken fot = new FeeOnTransferToken();
        _fund(address(fot));
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(fot));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.BalanceDeltaMismatch.selector, 100e6, 99e6));
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertEq(fot.balanceOf(buyer), 1_000e6, "buyer keeps funds");
    }

    function test_RevertWhen_TokenReverts() public {
        RevertingToken rev = new RevertingToken();
        _fund(address(rev));
        rev.setMode(RevertingToken.Mode.Revert);
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(rev));
        vm.expectRevert(RevertingToken.TransfersDisabled.selector);
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertFalse(router.orders(o.orderId).paid, "still payable");
    }

    function test_RevertWhen_TokenReturnsFalse() public {
        RevertingToken rev = new RevertingToken();
        _fund(address(rev));
        rev.setMode(RevertingToken.Mode.ReturnFalse);
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(rev));
        vm.expectRevert(abi.encodeWithSelector(SafeERC20.SafeERC20FailedOperation.selector, address(rev)));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_MerchantBlocklisted() public {
        BlocklistToken blk = new BlocklistToken();
        _fund(address(blk));
        blk.setBlocked(merchant, true);
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(blk));
        vm.expectRevert(abi.encodeWithSelector(BlocklistToken.Blocked.selector, merchant));
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertEq(blk.balanceOf(buyer), 1_000e6, "buyer keeps funds");
        vm.assertEq(blk.balanceOf(address(router)), 0, "router holds nothing");
        vm.assertFalse(router.orders(o.orderId).paid, "order stays payable");
    }

    function test_RevertWhen_RefundRecipientBlocklisted() public {
        BlocklistToken blk = new BlocklistToken();
        _fund(address(blk));
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(blk));
        vm.prank(buyer);
        router.payOrder(o, sig);
        blk.setBlocked(buyer, true);
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, 1e6);
        bytes memory rsig = sign(r);
        vm.expectRevert(abi.encodeWithSelector(BlocklistToken.Blocked.selector, buyer));
        router.refund(r, rsig);
        vm.assertFalse(router.refundUsed(r.refundId), "refund id not burnt");
        vm.assertEq(router.orders(o.orderId).reserve, o.reserveHold, "reserve intact");
    }

    function test_SettleSkipsBlocklistedMerchant() public {
        BlocklistToken blk = new BlocklistToken();
        _fund(address(blk));
        (IPaymentRouter.PayOrder memory a, bytes memory sigA) = _payWith(address(blk));
        IPaymentRouter.PayOrder memory b = splitOrder(address(blk), 100e6, 100, 500, 1000);
        address goodMerchant = makeAddr("good merchant");
        b.merchant = goodMerchant;
        bytes memory sigB = sign(b);
        vm.startPrank(buyer);
        router.payOrder(a, sigA);
        router.payOrder(b, sigB);
        vm.stopPrank();
        blk.setBlocked(merchant, true);
        warpPastHold(a.orderId);

        bytes32[] memory ids = new bytes32[](2);
        (ids[0], ids[1]) = (a.orderId, b.orderId);
        bytes32 batchId = keccak256("stl_blk");
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleaseFailed(a.orderId, batchId, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(b.orderId, batchId, goodMerchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(batchId, 1, 9.4e6);
        vm.prank(operator);
        router.settleBatch(batchId, ids);
        vm.assertEq(router.orders(a.orderId).reserve, 9.4e6, "blocked merchant's reserve kept");
        vm.assertEq(blk.balanceOf(address(router)), 9.4e6, "books match balance");
    }

    function test_RevertWhen_ReentrantPay() public {
        ReentrantToken ren = new ReentrantToken();
        _fund(address(ren));
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(ren));
        (IPaymentRouter.PayOrder memory o2, bytes memory sig2) = _payWith(address(ren));
        ren.arm(address(router), abi.encodeCall(router.payOrder, (o2, sig2)));
        vm.expectRevert(ReentrancyGuard.ReentrancyGuardReentrantCall.selector);
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_ReentrantRefund() public {
        ReentrantToken ren = new ReentrantToken();
        _fund(address(ren));
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(ren));
        vm.prank(buyer);
        router.payOrder(o, sig);
        IPaymentRouter.RefundOrder memory r1 = refundOrder(o.orderId, 5e6);
        IPaymentRouter.RefundOrder memory r2 = refundOrder(o.orderId, 4e6);
        ren.arm(address(router), abi.encodeCall(router.refund, (r2, sign(r2))));
        bytes memory sig1 = sign(r1);
        vm.expectRevert(ReentrancyGuard.ReentrancyGuardReentrantCall.selector);
        router.refund(r1, sig1);
    }

    function test_ReentrantSettleIsContained() public {
        // During a release the token tries to re-enter refund(); the guard reverts that transfer, which
        // settleBatch treats as a refused release: the reserve stays recorded and held.
        ReentrantToken ren = new ReentrantToken();
        _fund(address(ren));
        (IPaymentRouter.PayOrder memory o, bytes memory sig) = _payWith(address(ren));
        vm.prank(buyer);
        router.payOrder(o, sig);
        warpPastHold(o.orderId); // else the batch skips the order for its hold and never calls the token
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, 9.4e6);
        ren.arm(address(router), abi.encodeCall(router.refund, (r, sign(r))));
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = o.orderId;
        vm.prank(operator);
        router.settleBatch(keccak256("stl_ren"), ids);
        vm.assertEq(router.orders(o.orderId).reserve, 9.4e6, "reserve kept");
        vm.assertEq(ren.balanceOf(address(router)), 9.4e6, "books match balance");
        vm.assertFalse(router.refundUsed(r.refundId), "re-entered refund did not happen");
    }
}
