// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice cancelOrders: the operator voids signed PayOrders nobody paid. A payment mined first wins (the
///         id is skipped silently); a cancelled id can never be paid, by either pay path, and nothing moves.
contract CancelOrdersTest is RouterTestBase {
    function _cancel(bytes32[] memory ids) internal {
        vm.prank(operator);
        router.cancelOrders(ids);
    }

    function test_CancelOrders() public {
        IPaymentRouter.PayOrder memory a = defaultOrder();
        IPaymentRouter.PayOrder memory b = defaultOrder();
        bytes32[] memory ids = new bytes32[](2);
        (ids[0], ids[1]) = (a.orderId, b.orderId);
        vm.expectEmit();
        emit IPaymentRouter.PayOrderCancelled(a.orderId);
        vm.expectEmit();
        emit IPaymentRouter.PayOrderCancelled(b.orderId);
        _cancel(ids);
        vm.assertTrue(router.orderCancelled(a.orderId), "a cancelled");
        vm.assertTrue(router.orderCancelled(b.orderId), "b cancelled");
        vm.assertFalse(router.orders(a.orderId).paid, "not paid");
    }

    function test_CancelOrders_SkipsPaidId() public {
        IPaymentRouter.PayOrder memory paidOrder = defaultOrder();
        pay(paidOrder); // the payment was mined before the cancellation
        IPaymentRouter.PayOrder memory open = defaultOrder();
        bytes32[] memory ids = new bytes32[](2);
        (ids[0], ids[1]) = (paidOrder.orderId, open.orderId);
        vm.recordLogs();
        _cancel(ids);
        vm.assertEq(countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector), 1, "one event, the open id");
        vm.assertFalse(router.orderCancelled(paidOrder.orderId), "payment mined first wins");
        vm.assertTrue(router.orderCancelled(open.orderId), "open id cancelled");
        IPaymentRouter.Order memory rec = router.orders(paidOrder.orderId);
        vm.assertTrue(rec.paid, "still paid");
        vm.assertEq(rec.reserve, paidOrder.reserveHold, "its reserve untouched");
        vm.assertEq(router.reserved(address(usdc)), paidOrder.reserveHold, "reserved untouched");
    }

    function test_CancelOrders_SkipsAlreadyCancelled() public {
        bytes32[] memory ids = ids1(defaultOrder().orderId);
        _cancel(ids);
        vm.recordLogs();
        _cancel(ids);
        vm.assertEq(countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector), 0, "no second event");
        vm.assertTrue(router.orderCancelled(ids[0]), "still cancelled");
    }

    function test_CancelOrders_DuplicateIdsInOneCall() public {
        bytes32 id = defaultOrder().orderId;
        bytes32[] memory ids = new bytes32[](3);
        (ids[0], ids[1], ids[2]) = (id, id, id);
        vm.recordLogs();
        _cancel(ids);
        vm.assertEq(countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector), 1, "one event per id");
    }

    function test_CancelOrders_WhilePaused() public {
        vm.prank(owner);
        router.pause();
        IPaymentRouter.PayOrder memory o = defaultOrder();
        vm.expectEmit();
        emit IPaymentRouter.PayOrderCancelled(o.orderId);
        _cancel(ids1(o.orderId));
        vm.assertTrue(router.orderCancelled(o.orderId), "cancelled while paused");
    }

    function test_CancelOrders_MaxSize() public {
        bytes32[] memory ids = new bytes32[](100);
        for (uint256 i; i < 100; ++i) {
            ids[i] = keccak256(abi.encodePacked("ord_max_", i));
        }
        _cancel(ids);
        vm.assertTrue(router.orderCancelled(ids[99]), "last of 100 cancelled");
    }

    function test_RevertWhen_CancelOrdersNotOperator() public {
        bytes32[] memory ids = ids1(defaultOrder().orderId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, owner));
        vm.prank(owner); // not even the owner: cancelling is the operator's job
        router.cancelOrders(ids);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, signer));
        vm.prank(signer);
        router.cancelOrders(ids);
        vm.assertFalse(router.orderCancelled(ids[0]), "not cancelled");
    }

    function test_RevertWhen_CancelOrdersEmpty() public {
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 0, 100));
        _cancel(new bytes32[](0));
    }

    function test_RevertWhen_CancelOrdersTooMany() public {
        bytes32[] memory ids = new bytes32[](101);
        ids[0] = defaultOrder().orderId;
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 101, 100));
        _cancel(ids);
        vm.assertFalse(router.orderCancelled(ids[0]), "nothing cancelled");
    }

    function test_RevertWhen_PayCancelledOrder() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.payer = buyer; // a payer-locked order: the named payer is refused too
        bytes memory sig = sign(o);
        _cancel(ids1(o.orderId));
        uint256 buyerBefore = bal(buyer);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId));
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertEq(bal(buyer), buyerBefore, "buyer keeps funds");
        vm.assertEq(bal(address(router)), 0, "router holds nothing");
        vm.assertEq(bal(merchant) + bal(platform) + bal(treasury), 0, "no share paid");
        vm.assertFalse(router.orders(o.orderId).paid, "not paid");
        vm.assertEq(router.reserved(address(usdc)), 0, "nothing reserved");
    }

    function test_RevertWhen_PayCancelledOrderAfterUnpause() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        vm.prank(owner);
        router.pause();
        _cancel(ids1(o.orderId));
        vm.prank(owner);
        router.unpause();
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_PayCancelledOrderWithPermit() public {
        uint256 key = 0xCAFE;
        address permitBuyer = vm.addr(key);
        usdc.mint(permitBuyer, 100e6);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        uint256 deadline = block.timestamp + 600;
        (uint8 v, bytes32 r, bytes32 s) = signPermit(key, o.amount, deadline);
        _cancel(ids1(o.orderId));

        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId));
        vm.prank(permitBuyer);
        router.payOrderWithPermit(o, sig, deadline, v, r, s);
        vm.assertEq(bal(permitBuyer), 100e6, "buyer keeps funds");
        vm.assertEq(usdc.allowance(permitBuyer, address(router)), 0, "the permit was rolled back too");
        vm.assertEq(usdc.nonces(permitBuyer), 0, "permit nonce unspent");
        vm.assertEq(bal(address(router)), 0, "router holds nothing");
        vm.assertFalse(router.orders(o.orderId).paid, "not paid");
    }

    function test_RevertWhen_PayCancelledOrderSignedAgain() public {
        // A fresh signature (new deadline, even new terms) for a cancelled id is refused: cancellation is by id.
        IPaymentRouter.PayOrder memory o = defaultOrder();
        _cancel(ids1(o.orderId));
        o.deadline = block.timestamp + 2 days;
        o.amount = 1e6;
        o.serviceFee = 0;
        o.platformFee = 0;
        o.reserveHold = 0;
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }
}
