// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

contract SettleTest is RouterTestBase {
    bytes32 internal constant BATCH = keccak256("stl_1");

    /// @dev n paid orders (same second, so the same releaseAfter), with the clock moved past their hold.
    function _paidOrders(uint256 n) internal returns (bytes32[] memory ids) {
        ids = new bytes32[](n);
        for (uint256 i; i < n; ++i) {
            IPaymentRouter.PayOrder memory o = defaultOrder();
            pay(o);
            ids[i] = o.orderId;
        }
        warpPastHold(ids[0]);
    }

    function test_SettleBatch() public {
        bytes32[] memory ids = _paidOrders(3);
        uint256 merchantBefore = bal(merchant);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(ids[0], BATCH, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(ids[1], BATCH, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(ids[2], BATCH, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(BATCH, 3, 28.2e6);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);

        vm.assertEq(bal(merchant) - merchantBefore, 28.2e6, "merchant got the reserves");
        vm.assertEq(bal(address(router)), 0, "router empty");
        vm.assertEq(router.orders(ids[0]).reserve, 0, "released");
        vm.assertTrue(router.batchSettled(BATCH), "batch id spent");
    }

    function test_SettleBatch_InsideHoldReleasesNothing() public {
        bytes32[] memory ids = new bytes32[](3);
        for (uint256 i; i < 3; ++i) {
            IPaymentRouter.PayOrder memory o = defaultOrder();
            pay(o);
            ids[i] = o.orderId;
        }
        vm.warp(block.timestamp + HOLD - 1); // the last second of the hold
        uint256 merchantBefore = bal(merchant);
        vm.recordLogs();
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        vm.assertEq(countLogs(address(router), IPaymentRouter.ReserveReleased.selector), 0, "no ReserveReleased");
        vm.assertEq(bal(merchant), merchantBefore, "merchant got nothing");
        vm.assertEq(bal(address(router)), 28.2e6, "every reserve stays");
        vm.assertEq(router.reserved(address(usdc)), 28.2e6, "reserved unchanged");
        for (uint256 i; i < 3; ++i) {
            vm.assertEq(router.orders(ids[i]).reserve, 9.4e6, "reserve recorded");
        }
    }

    function test_SettleBatch_SkipsReleasedRefundedAndUnpaid() public {
        bytes32[] memory ids = _paidOrders(3);
        bytes32[] memory first = new bytes32[](1);
        first[0] = ids[0];
        vm.prank(operator);
        router.settleBatch(keccak256("stl_0"), first);
        // order 1's reserve is consumed by a refund
        IPaymentRouter.RefundOrder memory r = refundOrder(ids[1], 9.4e6);
        router.refund(r, sign(r));

        bytes32[] memory batch = new bytes32[](4);
        (batch[0], batch[1], batch[2], batch[3]) = (ids[0], ids[1], ids[2], keccak256("ord_unpaid"));
        vm.expectEmit();
        emit IPaymentRouter.ReserveReleased(ids[2], BATCH, merchant, 9.4e6);
        vm.expectEmit();
        emit IPaymentRouter.BatchSettled(BATCH, 1, 9.4e6);
        vm.prank(operator);
        router.settleBatch(BATCH, batch);
        vm.assertEq(bal(address(router)), 0, "nothing left");
    }

    function test_RefundAfterSettleIsFullyFunded() public {
        bytes32[] memory ids = _paidOrders(1);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        IPaymentRouter.RefundOrder memory r = refundOrder(ids[0], 2e6);
        bytes memory sig = sign(r);
        address funder = makeAddr("funder");
        usdc.mint(funder, 2e6);
        vm.startPrank(funder);
        usdc.approve(address(router), 2e6);
        vm.expectEmit();
        emit IPaymentRouter.Refunded(ids[0], r.refundId, buyer, 2e6, 0, 2e6);
        router.refund(r, sig);
        vm.stopPrank();
    }

    function test_SettleBatch_MaxSize() public {
        bytes32[] memory ids = _paidOrders(100);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        vm.assertEq(bal(address(router)), 0, "100 orders released");
    }

    function test_RevertWhen_BatchTooLarge() public {
        bytes32[] memory ids = new bytes32[](101);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 101, 100));
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
    }

    function test_RevertWhen_BatchEmpty() public {
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 0, 100));
        vm.prank(operator);
        router.settleBatch(BATCH, new bytes32[](0));
    }

    function test_RevertWhen_DoubleSettle() public {
        bytes32[] memory ids = _paidOrders(1);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.BatchAlreadySettled.selector, BATCH));
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
    }

    function test_RevertWhen_NonOperatorSettles() public {
        bytes32[] memory ids = _paidOrders(1);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, merchant));
        vm.prank(merchant);
        router.settleBatch(BATCH, ids);
    }

    function test_RevertWhen_SettlePaused() public {
        bytes32[] memory ids = _paidOrders(1);
        vm.prank(owner);
        router.pause();
        vm.expectRevert(Pausable.EnforcedPause.selector);
        vm.prank(operator);
        router.settleBatch(BATCH, ids);
    }
}

contract AdminTest is RouterTestBase {
    function test_SignerRotation() public {
        address next = vm.addr(OTHER_KEY);
        vm.startPrank(owner);
        vm.expectEmit();
        emit IPaymentRouter.SignerUpdated(next, true);
        router.addSigner(next);
        router.removeSigner(signer);
        vm.stopPrank();
        vm.assertTrue(router.isSigner(next), "new signer");
        vm.assertFalse(router.isSigner(signer), "old signer removed");

        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory oldSig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, signer));
        vm.prank(buyer);
        router.payOrder(o, oldSig);
    }

    function test_OwnerSetters() public {
        address newOperator = makeAddr("operator2");
        address newTreasury = makeAddr("treasury2");
        vm.startPrank(owner);
        vm.expectEmit();
        emit IPaymentRouter.OperatorUpdated(operator, newOperator);
        router.setOperator(newOperator);
        vm.expectEmit();
        emit IPaymentRouter.ServiceTreasuryUpdated(treasury, newTreasury);
        router.setServiceTreasury(newTreasury);
        vm.stopPrank();
        vm.assertEq(router.operator(), newOperator, "operator");
        vm.assertEq(router.serviceTreasury(), newTreasury, "treasury");
        pay(defaultOrder());
        vm.assertEq(bal(newTreasury), 1e6, "fees follow the new treasury");
    }

    function test_RevertWhen_NotOwner() public {
        bytes memory err = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, buyer);
        vm.startPrank(buyer);
        vm.expectRevert(err);
        router.addSigner(buyer);
        vm.expectRevert(err);
        router.removeSigner(signer);
        vm.expectRevert(err);
        router.setOperator(buyer);
        vm.expectRevert(err);
        router.setServiceTreasury(buyer);
        vm.expectRevert(err);
        router.pause();
        vm.stopPrank();
    }

    function test_RevertWhen_ZeroAddressSetters() public {
        vm.startPrank(owner);
        vm.expectRevert(IPaymentRouter.ZeroAddress.selector);
        router.addSigner(address(0));
        vm.expectRevert(IPaymentRouter.ZeroAddress.selector);
        router.setOperator(address(0));
        vm.expectRevert(IPaymentRouter.ZeroAddress.selector);
        router.setServiceTreasury(address(0));
        vm.stopPrank();
    }

    function test_RevertWhen_RenounceOwnership() public {
        vm.expectRevert(IPaymentRouter.RenounceDisabled.selector);
        vm.prank(owner);
        router.renounceOwnership();
    }

    function test_OwnershipTransferIsTwoStep() public {
        address next = makeAddr("next owner");
        vm.prank(owner);
        router.transferOwnership(next);
        vm.assertEq(router.owner(), owner, "not yet");
        vm.prank(next);
        router.acceptOwnership();
        vm.assertEq(router.owner(), next, "accepted");
    }
}
