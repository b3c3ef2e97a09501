// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice cancelRefund voids a signed RefundOrder for good; refunds go only to the payer the router recorded,
///         so a signer key alone (even a stolen one) can move a reserve nowhere but back to whoever paid.
contract RefundGuardsTest is RouterTestBase {
    IPaymentRouter.PayOrder internal paid;
    address internal attacker;

    function setUp() public override {
        super.setUp();
        paid = defaultOrder(); // 100 USDC, reserve 9.40, paid by buyer
        pay(paid);
        attacker = makeAddr("attacker");
    }

    function _cancelRefund(bytes32 refundId) internal {
        vm.prank(operator);
        router.cancelRefund(refundId);
    }

    function test_CancelRefund() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 5e6);
        vm.expectEmit();
        emit IPaymentRouter.RefundCancelled(r.refundId);
        _cancelRefund(r.refundId);
        vm.assertTrue(router.refundCancelled(r.refundId), "cancelled");
        vm.assertTrue(router.refundUsed(r.refundId), "used: it can never execute");
        vm.assertEq(router.orders(paid.orderId).reserve, 9.4e6, "reserve untouched");
    }

    function test_CancelRefund_WhilePaused() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 5e6);
        vm.prank(owner);
        router.pause();
        vm.expectEmit();
        emit IPaymentRouter.RefundCancelled(r.refundId);
        _cancelRefund(r.refundId);
        vm.assertTrue(router.refundCancelled(r.refundId), "cancelled while paused");
    }

    function test_RevertWhen_RefundCancelledRefund() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 5e6);
        bytes memory sig = sign(r);
        _cancelRefund(r.refundId);
        uint256 buyerBefore = bal(buyer);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, r.refundId));
        vm.prank(operator);
        router.refund(r, sig);
        vm.assertEq(bal(buyer), buyerBefore, "buyer got nothing");
        vm.assertEq(bal(address(router)), 9.4e6, "router balance unchanged");
        vm.assertEq(router.orders(paid.orderId).refunded, 0, "nothing refunded");
        vm.assertEq(router.reserved(address(usdc)), 9.4e6, "reserved unchanged");
    }

    function test_RevertWhen_CancelExecutedRefund() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 5e6);
        router.refund(r, sign(r));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, r.refundId));
        _cancelRefund(r.refundId);
        vm.assertFalse(router.refundCancelled(r.refundId), "an executed refund is not marked cancelled");
    }

    function test_RevertWhen_CancelRefundTwice() public {
        bytes32 refundId = keccak256("re_twice");
        _cancelRefund(refundId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, refundId));
        _cancelRefund(refundId);
    }

    function test_RevertWhen_CancelRefundNotOperator() public {
        bytes32 refundId = keccak256("re_x");
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, owner));
        vm.prank(owner);
        router.cancelRefund(refundId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, buyer));
        vm.prank(buyer);
        router.cancelRefund(refundId);
        vm.assertFalse(router.refundUsed(refundId), "still usable");
        vm.assertFalse(router.refundCancelled(refundId), "not cancelled");
    }

    /// The stolen-signer-key scenario: the key signs a refund of the whole reserve to the attacker. The
    /// signature is valid, so only the payer check stands between the attacker and the reserve.
    function test_RevertWhen_RefundNotToPayer_ValidSigner() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 9.4e6);
        r.to = attacker;
        bytes memory sig = sign(r);
        vm.assertEq(SigUtils.recover(router.hashRefundOrder(r), sig), signer, "signed by the real signer");
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, buyer, attacker));
        vm.prank(attacker);
        router.refund(r, sig);
        vm.assertEq(bal(attacker), 0, "attacker got nothing");
        vm.assertEq(bal(address(router)), 9.4e6, "reserve stays");
        vm.assertFalse(router.refundUsed(r.refundId), "refund id not spent");
    }

    function test_RevertWhen_RefundNotToPayer_NewlyAddedSigner() public {
        // A signer added later (e.g. a rotated-in key that leaked) is held to the same rule.
        vm.prank(owner);
        router.addSigner(vm.addr(OTHER_KEY));
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        r.to = attacker;
        bytes memory sig = SigUtils.signRefund(OTHER_KEY, r, address(router));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, buyer, attacker));
        router.refund(r, sig);
    }

    function test_RevertWhen_RefundToMerchantOrPlatform() public {
        address[3] memory wrong = [merchant, platform, operator];
        for (uint256 i; i < wrong.length; ++i) {
            IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
            r.to = wrong[i];
            bytes memory sig = sign(r);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, buyer, wrong[i]));
            router.refund(r, sig);
        }
        vm.assertEq(router.orders(paid.orderId).refunded, 0, "nothing refunded");
    }

    function test_RevertWhen_RefundToNamedPayerOfOtherOrder() public {
        // The recorded payer is msg.sender of the payment, per order: B's payer cannot be refunded A's money.
        address other = makeAddr("other buyer");
        usdc.mint(other, 100e6);
        vm.prank(other);
        usdc.approve(address(router), type(uint256).max);
        IPaymentRouter.PayOrder memory b = defaultOrder();
        b.payer = other;
        payAs(other, b);
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        r.to = other;
        bytes memory sig = sign(r);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, buyer, other));
        router.refund(r, sig);
    }

    function test_Refund_ToPayerWhoPaidAnOpenOrder() public {
        // payer = address(0) in the PayOrder: whoever paid is recorded and is the only refund recipient.
        address stranger = makeAddr("stranger");
        usdc.mint(stranger, 100e6);
        vm.prank(stranger);
        usdc.approve(address(router), type(uint256).max);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        payAs(stranger, o);
        vm.assertEq(router.orders(o.orderId).payer, stranger, "payer recorded");
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, 2e6);
        r.to = stranger;
        router.refund(r, sign(r));
        vm.assertEq(bal(stranger), 2e6, "refunded to the payer");

        IPaymentRouter.RefundOrder memory toBuyer = refundOrder(o.orderId, 1e6); // to: buyer
        bytes memory sig = sign(toBuyer);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, stranger, buyer));
        router.refund(toBuyer, sig);
    }
}
