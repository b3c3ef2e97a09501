// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {HandlerModel} from "./HandlerModel.sol";

/// @notice Payments, refunds and their cancellations. Orders and refunds are signed first and kept, then
///         paid / executed / cancelled later, so every path meets stale state: paid or cancelled ids, expired
///         deadlines, signers removed since, payer-locked orders paid by the wrong actor, refunds to strangers.
abstract contract HandlerPayments is HandlerModel {
    /// Signs (does not pay) a PayOrder; a third are locked to one actor, approver or permit payer; two in five
    /// are authorizations (see _captureDeadlineFor).
    function newOrder(uint256 amount, uint256 bps, uint256 payerSeed, uint256 signerSeed, uint256 ttl) external {
        IPaymentRouter.PayOrder memory o = _newPayOrder(amount, bps, payerSeed, ttl);
        o.captureDeadline = _captureDeadlineFor(o.deadline, ttl >> 128);
        _sign(o, signerSeed);
        _done(Action.NewOrder);
    }

    function _newPayOrder(uint256 amount, uint256 bps, uint256 payerSeed, uint256 ttl)
        internal
        returns (IPaymentRouter.PayOrder memory)
    {
        amount = bound(amount, 1, 1e12);
        uint256 serviceFee = amount * bound(bps, 0, 1_000) / 10_000;
        uint256 platformFee = (amount - serviceFee) * bound(bps >> 16, 0, 5_000) / 10_000;
        return IPaymentRouter.PayOrder({
            orderId: keccak256(abi.encodePacked("ord_inv_", ++_nonce)),
            token: address(usdc),
            amount: amount,
            payer: payerSeed % 3 == 0 ? actor(payerSeed >> 2) : address(0),
            merchant: merchant,
            platform: platform,
            serviceFee: serviceFee,
            platformFee: platformFee,
            reserveHold: (amount - serviceFee - platformFee) * bound(bps >> 32, 0, 10_000) / 10_000,
            deadline: block.timestamp + bound(ttl, 6 hours, 7 days),
            captureDeadline: 0
        });
    }

    function _sign(IPaymentRouter.PayOrder memory o, uint256 signerSeed) internal {
        orderIds.push(o.orderId);
        _signed[o.orderId] = Signed(o, _pickSigner(signerSeed));
    }

    /// payOrder by an approver (a payer-locked order: its payer three times in four, else whoever the seed
    /// picks); one open order in five is tried by a permit payer with no allowance.
    function pay(uint256 index, uint256 actorSeed) external {
        if (orderIds.length == 0) return _skip(Action.Pay);
        Signed memory s = _signed[orderIds[_pick(index, orderIds.length)]];
        address who = actor(actorSeed % 5 == 0 ? actorSeed >> 3 : (actorSeed >> 3) % APPROVERS);
        if (s.order.payer != address(0) && actorSeed % 4 != 0) who = s.order.payer;
        bytes memory expected = _expectPay(s, who, false);
        bytes memory sig = SigUtils.signPay(signerKey(s.signerIndex), s.order, address(router));
        uint256 routerBefore = usdc.balanceOf(address(router));
        bool ok;
        bytes memory err;
        vm.prank(who);
        try router.payOrder(s.order, sig) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        if (_record(Action.Pay, ok, err, expected)) _paid(s.order, who, routerBefore);
    }

    /// payOrderWithPermit by a permit payer (no allowance) with a real EIP-2612 signature from TestUSDC.
    function payWithPermit(uint256 index, uint256 actorSeed) external {
        if (orderIds.length == 0) return _skip(Action.PayWithPermit);
        Signed memory s = _signed[orderIds[_pick(index, orderIds.length)]];
        uint256 key = actorKey(APPROVERS + actorSeed % (ACTORS - APPROVERS));
        // The locked payer itself, unless it is an approver: a permit would overwrite its max allowance.
        if (s.order.payer != address(0) && actorSeed % 4 != 0 && !_isApprover(s.order.payer)) {
            for (uint256 i = APPROVERS; i < ACTORS; ++i) {
                if (actor(i) == s.order.payer) key = actorKey(i);
            }
        }
        address who = vm.addr(key);
        uint256 permitDeadline = block.timestamp + 1 hours;
        bytes32 digest = SigUtils.permitDigest(
            usdc.DOMAIN_SEPARATOR(), who, address(router), s.order.amount, usdc.nonces(who), permitDeadline
        );
        (uint8 v, bytes32 r, bytes32 ps) = vm.sign(key, digest);
        bytes memory expected = _expectPay(s, who, true);
        bytes memory sig = SigUtils.signPay(signerKey(s.signerIndex), s.order, address(router));
        uint256 routerBefore = usdc.balanceOf(address(router));
        bool ok;
        bytes memory err;
        vm.prank(who);
        try router.payOrderWithPermit(s.order, sig, permitDeadline, v, r, ps) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        if (_record(Action.PayWithPermit, ok, err, expected)) _paid(s.order, who, routerBefore);
        if (usdc.allowance(who, address(router)) != 0) ++ghostBadMoves; // the permit is spent or rolled back
    }

    function _paid(IPaymentRouter.PayOrder memory o, address who, uint256 routerBefore) internal {
        if (ghostPaid[o.orderId]) ++ghostDoublePays;
        if (ghostCancelled[o.orderId]) ++ghostCancelledPaid;
        ghostPaid[o.orderId] = true;
        ghostPayer[o.orderId] = who;
        if (o.captureDeadline != 0) {
            ghostAuthorized[o.orderId] = o.amount;
            ghostAuthorizedAt[o.orderId] = o.amount;
            ghostHeld += o.amount;
            if (usdc.balanceOf(address(router)) != routerBefore + o.amount) ++ghostBadMoves;
            return;
        }
        ghostOrderReserve[o.orderId] = o.reserveHold;
        ghostReleaseAfter[o.orderId] = block.timestamp + ghostHold;
        ghostReserve += o.reserveHold;
        if (usdc.balanceOf(address(router)) != routerBefore + o.reserveHold) ++ghostBadMoves;
    }

    /// @dev 0 (paid at once) three times in five; else mostly deadline + 1 hour..3 days, one in eight 61 days
    ///      from signing (refused unless paid more than a day later), one in eight an hour from signing (refused
    ///      once paid later than that).
    function _captureDeadlineFor(uint256 deadline, uint256 seed) private view returns (uint256) {
        if (seed % 5 < 3) return 0;
        uint256 kind = (seed >> 8) % 8;
        if (kind == 0) return block.timestamp + 61 days;
        if (kind == 1) return block.timestamp + 1 hours;
        return deadline + bound(seed >> 16, 1 hours, 3 days);
    }

    /// Signs (does not execute) a RefundOrder: to the payer (recorded, or named on the PayOrder), one in five
    /// to a stranger; one in eight a unit beyond what is refundable, half within the reserve.
    function newRefund(uint256 index, uint256 amount, uint256 toSeed, uint256 signerSeed) external {
        if (orderIds.length == 0) return _skip(Action.NewRefund);
        uint256 at = _pick(index, orderIds.length);
        for (uint256 tries; tries < 8 && at > 0 && !ghostPaid[orderIds[at]] && index % 5 != 0; ++tries) {
            --at; // mostly refund a paid order; one in five (or none paid nearby) meets OrderNotPaid
        }
        bytes32 id = orderIds[at];
        IPaymentRouter.Order memory o = router.orders(id);
        address payer = o.paid ? o.payer : _signed[id].order.payer;
        uint256 refundable = (o.paid ? o.amount : _signed[id].order.amount) - o.refunded;
        if (amount % 8 == 0) amount = refundable + 1;
        else if (amount % 2 == 0 && o.reserve != 0) amount = bound(amount >> 4, 1, o.reserve);
        else amount = bound(amount >> 4, 1, refundable == 0 ? 1 : refundable);
        IPaymentRouter.RefundOrder memory r = IPaymentRouter.RefundOrder({
            orderId: id,
            refundId: keccak256(abi.encodePacked("re_inv_", ++_nonce)),
            to: toSeed % 5 == 0 || payer == address(0) ? actor(toSeed >> 3) : payer,
            amount: amount,
            deadline: block.timestamp + bound(toSeed >> 16, 1 hours, 4 days)
        });
        _refunds.push(SignedRefund(r, _pickSigner(signerSeed)));
        _done(Action.NewRefund);
    }

    /// Executes a signed refund, submitted by the funder (allowance) or by the operator (reserve only).
    function refund(uint256 index, bool byFunder) external {
        if (_refunds.length == 0) return _skip(Action.Refund);
        SignedRefund memory s = _refunds[_pick(index, _refunds.length)];
        IPaymentRouter.RefundOrder memory r = s.refund;
        address submitter = byFunder ? funder : operator;
        bytes memory expected = _expectRefund(s, submitter);
        bytes memory sig = SigUtils.signRefund(signerKey(s.signerIndex), r, address(router));
        IPaymentRouter.Order memory before = router.orders(r.orderId);
        uint256 toBefore = usdc.balanceOf(r.to);
        bool ok;
        bytes memory err;
        vm.prank(submitter);
        try router.refund(r, sig) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        if (!_record(Action.Refund, ok, err, expected)) return;
        if (r.to != before.payer) ++ghostRefundsToStrangers;
        if (before.refunded + r.amount > before.amount) ++ghostOverRefunds;
        if (usdc.balanceOf(r.to) != toBefore + r.amount) ++ghostBadMoves;
        uint256 fromReserve = r.amount < ghostOrderReserve[r.orderId] ? r.amount : ghostOrderReserve[r.orderId];
        ghostOrderReserve[r.orderId] -= fromReserve;
        ghostReserve = _sub(ghostReserve, fromReserve);
        ghostRefundUsed[r.refundId] = true;
    }

    /// cancelOrders over ids from the pool (paid, cancelled or open); an empty batch or a stranger reverts.
    function cancelOrders(uint256 start, uint256 count, uint256 callerSeed) external {
        if (orderIds.length == 0) return _skip(Action.CancelOrders);
        count = bound(count, 0, 6);
        bytes32[] memory ids = new bytes32[](count);
        for (uint256 i; i < count; ++i) {
            ids[i] = orderIds[(_pick(start, orderIds.length) + i * (callerSeed % 3 + 1)) % orderIds.length];
        }
        address caller = _operatorCaller(callerSeed);
        bytes memory expected = _expectOperator(caller);
        if (expected.length == 0 && count == 0) {
            expected = abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 0, 100);
        }
        bool ok;
        bytes memory err;
        vm.recordLogs();
        vm.prank(caller);
        try router.cancelOrders(ids) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        uint256 events = countLogs(address(router), IPaymentRouter.PayOrderCancelled.selector);
        if (!_record(Action.CancelOrders, ok, err, expected)) return;
        if (ghostPaused) ++ghostCancelsWhilePaused;
        uint256 cancelled;
        for (uint256 i; i < count; ++i) {
            if (ghostPaid[ids[i]] || ghostCancelled[ids[i]]) continue; // a payment mined first wins
            ghostCancelled[ids[i]] = true;
            ++cancelled;
        }
        if (events != cancelled) ++ghostBadMoves;
    }

    /// cancelRefund of a signed refund (executed, cancelled or open) or of an id never signed.
    function cancelRefund(uint256 index, uint256 callerSeed) external {
        // Mostly an older refund (a fresh one is left to execute), sometimes a new one, or an id never signed.
        bytes32 refundId = _refunds.length == 0 || callerSeed % 5 == 1
            ? keccak256(abi.encodePacked("re_unsigned_", ++_nonce))
            : _refunds[index % 4 == 0 ? _pick(index, _refunds.length) : (index >> 2) % _refunds.length].refund.refundId;
        address caller = _operatorCaller(callerSeed);
        bytes memory expected = _expectOperator(caller);
        if (expected.length == 0 && ghostRefundUsed[refundId]) {
            expected = abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, refundId);
        }
        bool ok;
        bytes memory err;
        vm.prank(caller);
        try router.cancelRefund(refundId) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        if (!_record(Action.CancelRefund, ok, err, expected)) return;
        if (ghostPaused) ++ghostCancelsWhilePaused;
        ghostRefundUsed[refundId] = true;
        ghostRefundCancelled[refundId] = true;
    }
}
