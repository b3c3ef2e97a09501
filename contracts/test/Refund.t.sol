// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

contract RefundTest is RouterTestBase {
    IPaymentRouter.PayOrder internal paid;
    address internal funder;

    function setUp() public override {
        super.setUp();
        paid = defaultOrder(); // 100 USDC, reserve 9.40
        pay(paid);
        funder = makeAddr("platform funder");
        usdc.mint(funder, 1_000e6);
    }

    function test_Refund_FromReserve() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 5e6);
        uint256 buyerBefore = bal(buyer);
        vm.expectEmit();
        emit IPaymentRouter.Refunded(paid.orderId, r.refundId, buyer, 5e6, 5e6, 0);
        vm.prank(operator); // the operator submits reserve-covered refunds; needs no allowance
        router.refund(r, sign(r));

        vm.assertEq(bal(buyer) - buyerBefore, 5e6, "buyer refunded");
        vm.assertEq(bal(address(router)), 4.4e6, "reserve reduced");
        IPaymentRouter.Order memory rec = router.orders(paid.orderId);
        vm.assertEq(rec.reserve, 4.4e6, "recorded reserve");
        vm.assertEq(rec.refunded, 5e6, "refunded total");
        vm.assertTrue(router.refundUsed(r.refundId), "refund id spent");
    }

    function test_Refund_NeedsFunding() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 100e6);
        bytes memory sig = sign(r);
        vm.startPrank(funder);
        usdc.approve(address(router), 90.6e6);
        vm.expectEmit();
        emit IPaymentRouter.Refunded(paid.orderId, r.refundId, buyer, 100e6, 9.4e6, 90.6e6);
        router.refund(r, sig);
        vm.stopPrank();

        vm.assertEq(bal(funder), 1_000e6 - 90.6e6, "funder paid the part the reserve could not");
        vm.assertEq(bal(address(router)), 0, "reserve used up");
        vm.assertEq(router.orders(paid.orderId).refunded, 100e6, "fully refunded");
    }

    function test_Refund_PartialsUpToAmount() public {
        IPaymentRouter.RefundOrder memory a = refundOrder(paid.orderId, 60e6);
        IPaymentRouter.RefundOrder memory b = refundOrder(paid.orderId, 40e6);
        vm.startPrank(funder);
        usdc.approve(address(router), type(uint256).max);
        router.refund(a, sign(a));
        router.refund(b, sign(b));
        vm.stopPrank();
        vm.assertEq(router.orders(paid.orderId).refunded, 100e6, "two partials reach the amount");
    }

    function test_RevertWhen_RefundExceedsOrder() public {
        IPaymentRouter.RefundOrder memory a = refundOrder(paid.orderId, 9e6);
        vm.prank(operator);
        router.refund(a, sign(a));
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 91e6 + 1);
        bytes memory sig = sign(r);
        vm.expectRevert(
            abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, paid.orderId, 91e6 + 1, 91e6)
        );
        vm.prank(funder);
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundNeedsFundingWithoutAllowance() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 10e6);
        bytes memory sig = sign(r);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, 0.6e6)
        );
        vm.prank(operator);
        router.refund(r, sig);
        vm.assertEq(router.orders(paid.orderId).reserve, 9.4e6, "reserve untouched");
        vm.assertFalse(router.refundUsed(r.refundId), "refund id still usable once funded");
    }

    function test_RevertWhen_RefundIdReplayed() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = sign(r);
        router.refund(r, sig);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, r.refundId));
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundUnpaidOrder() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(keccak256("ord_unpaid"), 1e6);
        bytes memory sig = sign(r);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderNotPaid.selector, r.orderId));
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundBadSigner() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = SigUtils.signRefund(OTHER_KEY, r, address(router));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(OTHER_KEY)));
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundExpired() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = sign(r);
        vm.warp(r.deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, r.deadline, r.deadline + 1));
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundZero() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 0);
        bytes memory sig = sign(r);
        vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundPaused() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = sign(r);
        vm.prank(owner);
        router.pause();
        vm.expectRevert(Pausable.EnforcedPause.selector);
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundSignatureForOtherOrder() public {
        // A refund signed for one order cannot be pointed at another (orderId is inside the signature).
        IPaymentRouter.PayOrder memory other = defaultOrder();
        pay(other);
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = sign(r);
        r.orderId = other.orderId;
        address recovered = SigUtils.recover(router.hashRefundOrder(r), sig);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        router.refund(r, sig);
    }
}
