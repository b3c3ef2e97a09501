// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {HandlerPayments} from "./HandlerPayments.sol";

/// @notice Authorizations paid at once, and capture, void and reclaim of those and of the ones HandlerPayments'
///         pay actions made, each booked against
///         the model like every other action. Every successful call is checked to the base unit: the router loses
///         exactly what the payer and the signed parties gain, and no other account's balance moves.
abstract contract HandlerEscrow is HandlerPayments {
    struct Leg {
        uint256 serviceFee;
        uint256 platformFee;
        uint256 reserveHold;
    }

    struct Balances {
        uint256 router;
        uint256 payer;
        uint256 treasury;
        uint256 platform;
        uint256 merchant;
        uint256 others; // every actor but the payer, the funder, the operator and the owner
    }

    /// Signs an authorization and has an approver pay it at once (payOrder); one in eight with a capture
    /// deadline 60 days + 1..86,400 s ahead, one in eight with one that is now: both refused.
    function authorize(uint256 amount, uint256 bps, uint256 who, uint256 seed) external {
        IPaymentRouter.PayOrder memory o = _newPayOrder(amount, bps, 1, seed);
        uint256 kind = (seed >> 128) % 8;
        o.captureDeadline = kind == 0
            ? block.timestamp + 60 days + bound(seed >> 136, 1, 1 days)
            : kind == 1 ? block.timestamp : o.deadline + bound(seed >> 136, 1 hours, 3 days);
        _sign(o, seed >> 64);
        Signed memory s = _signed[o.orderId];
        address payer = actor(who % APPROVERS);
        bytes memory expected = _expectPay(s, payer, false);
        bytes memory sig = SigUtils.signPay(signerKey(s.signerIndex), o, address(router));
        uint256 routerBefore = usdc.balanceOf(address(router));
        vm.prank(payer);
        try router.payOrder(o, sig) {
            if (_record(Action.Authorize, true, "", expected)) _paid(o, payer, routerBefore);
        } catch (bytes memory err) {
            _record(Action.Authorize, false, err, expected);
        }
    }

    /// The operator (one call in eight an actor) captures an authorization: the whole amount three times in
    /// eight, a part four in eight, one unit too much one in eight; split at the window's lower ends five times
    /// in eight, else one leg a unit up or down, or the whole amount as service fee; one call in eight with a
    /// PayOrder that names another merchant.
    function capture(uint256 index, uint256 amountSeed, uint256 splitSeed, uint256 callerSeed) external {
        if (orderIds.length == 0) return _skip(Action.Capture);
        bytes32 id = orderIds[_pickAuthorized(index)];
        IPaymentRouter.PayOrder memory o = _signed[id].order;
        uint256 mode = amountSeed % 8;
        uint256 c = mode < 3 ? o.amount : mode < 7 ? bound(amountSeed >> 8, 1, o.amount) : o.amount + 1;
        Leg memory y = _splitFor(o, c, splitSeed);
        address caller = _operatorCaller(callerSeed);
        bool tampered = (callerSeed >> 8) % 8 == 1;
        bytes memory expected = _expectCapture(caller, o, tampered, c, y);
        if (tampered) o.merchant = actor(callerSeed >> 16);
        Balances memory b = _balances(id);
        vm.prank(caller);
        try router.capture(o, c, y.serviceFee, y.platformFee, y.reserveHold) {
            _record(Action.Capture, true, "", expected);
        } catch (bytes memory err) {
            _record(Action.Capture, false, err, expected);
            return;
        }
        _captured(id, o, c, y, b);
    }

    /// The operator (one call in eight an actor) voids an authorization; three calls in four are skipped so
    /// that authorizations live long enough to be captured or reclaimed.
    function voidAuthorization(uint256 index, uint256 callerSeed) external {
        if (orderIds.length == 0 || (callerSeed >> 200) % 4 != 0) return _skip(Action.VoidAuthorization);
        bytes32 id = orderIds[_pickAuthorized(index)];
        address caller = _operatorCaller(callerSeed);
        bytes memory expected = _expectOperator(caller);
        if (expected.length == 0 && ghostAuthorized[id] == 0) {
            expected = abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, id);
        }
        Balances memory b = _balances(id);
        vm.prank(caller);
        try router.voidAuthorization(id) {
            if (_record(Action.VoidAuthorization, true, "", expected)) _returned(id, b);
        } catch (bytes memory err) {
            _record(Action.VoidAuthorization, false, err, expected);
        }
    }

    /// Any actor reclaims an authorization (to its payer), before or after its capture deadline.
    function reclaim(uint256 index, uint256 callerSeed) external {
        if (orderIds.length == 0) return _skip(Action.Reclaim);
        bytes32 id = orderIds[_pickAuthorized(index)];
        uint256 captureDeadline = _signed[id].order.captureDeadline;
        bytes memory expected;
        if (ghostAuthorized[id] == 0) {
            expected = abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, id);
        } else if (block.timestamp < captureDeadline) {
            expected =
                abi.encodeWithSelector(IPaymentRouter.CaptureNotExpired.selector, captureDeadline, block.timestamp);
        }
        Balances memory b = _balances(id);
        vm.prank(actor(callerSeed));
        try router.reclaim(id) {
            if (_record(Action.Reclaim, true, "", expected)) _returned(id, b);
        } catch (bytes memory err) {
            _record(Action.Reclaim, false, err, expected);
        }
    }

    /// @dev capture's checks in the router's order (`tampered`: the PayOrder sent names another merchant).
    function _expectCapture(address caller, IPaymentRouter.PayOrder memory o, bool tampered, uint256 c, Leg memory y)
        internal
        view
        returns (bytes memory)
    {
        bytes memory expected = _expectOperator(caller);
        if (expected.length != 0) return expected;
        if (ghostPaused) return abi.encodeWithSignature("EnforcedPause()");
        uint256 authorized = ghostAuthorized[o.orderId];
        if (authorized == 0) return abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId);
        if (tampered) return abi.encodeWithSelector(IPaymentRouter.AuthorizationMismatch.selector, o.orderId);
        if (block.timestamp >= o.captureDeadline) {
            return abi.encodeWithSelector(IPaymentRouter.CaptureExpired.selector, o.captureDeadline, block.timestamp);
        }
        if (c > authorized) {
            return abi.encodeWithSelector(IPaymentRouter.CaptureExceedsAuthorized.selector, c, authorized);
        }
        if (!_windowAccepts(o, c, y)) {
            return abi.encodeWithSelector(
                IPaymentRouter.CaptureSplitOutOfBounds.selector, c, y.serviceFee, y.platformFee, y.reserveHold
            );
        }
        return "";
    }

    /// @dev The split window (docs/contracts.md), written independently of the router: per leg
    ///      ⌊x·f/T⌋ <= y <= ⌊(x·(f+1) - 1)/T⌋, x == 0 only 0; no signed gross: any reserve up to the gross.
    function _windowAccepts(IPaymentRouter.PayOrder memory o, uint256 c, Leg memory y) internal pure returns (bool) {
        if (y.serviceFee > c || y.platformFee > c - y.serviceFee) return false;
        uint256 gross = c - y.serviceFee - y.platformFee;
        if (y.reserveHold > gross) return false;
        uint256 grossSigned = o.amount - o.serviceFee - o.platformFee;
        return _legOk(c, y.serviceFee, o.amount, o.serviceFee) && _legOk(c, y.platformFee, o.amount, o.platformFee)
            && (grossSigned == 0 || _legOk(gross, y.reserveHold, grossSigned, o.reserveHold));
    }

    function _legOk(uint256 x, uint256 y, uint256 total, uint256 f) internal pure returns (bool) {
        if (x == 0) return y == 0;
        return x * f / total <= y && y <= (x * (f + 1) - 1) / total;
    }

    /// @dev The window's lower ends (always accepted), one leg a unit off, or everything as service fee.
    function _splitFor(IPaymentRouter.PayOrder memory o, uint256 c, uint256 seed) internal pure returns (Leg memory y) {
        uint256 cc = c > o.amount ? o.amount : c;
        y.serviceFee = cc * o.serviceFee / o.amount;
        y.platformFee = cc * o.platformFee / o.amount;
        uint256 grossSigned = o.amount - o.serviceFee - o.platformFee;
        if (grossSigned != 0) y.reserveHold = (cc - y.serviceFee - y.platformFee) * o.reserveHold / grossSigned;
        uint256 mode = seed % 8;
        if (mode < 5) return y;
        if (mode == 7) return Leg(c, 0, 0);
        uint256 leg = (seed >> 8) % 3;
        uint256 v = leg == 0 ? y.serviceFee : leg == 1 ? y.platformFee : y.reserveHold;
        v = mode == 5 || v == 0 ? v + 1 : v - 1;
        if (leg == 0) y.serviceFee = v;
        else if (leg == 1) y.platformFee = v;
        else y.reserveHold = v;
    }

    function _captured(bytes32 id, IPaymentRouter.PayOrder memory o, uint256 c, Leg memory y, Balances memory b)
        internal
    {
        uint256 authorized = ghostAuthorized[id];
        if (c > authorized) ++ghostOverCaptures;
        if (block.timestamp >= o.captureDeadline) ++ghostLateCaptures;
        Balances memory n = _balances(id);
        uint256 merchantNow = c - y.serviceFee - y.platformFee - y.reserveHold;
        if (_gain(b.treasury, n.treasury) != y.serviceFee || _gain(b.platform, n.platform) != y.platformFee) {
            ++ghostBadMoves;
        }
        if (_gain(b.merchant, n.merchant) != merchantNow || _gain(b.payer, n.payer) != authorized - c) ++ghostBadMoves;
        if (_gain(n.router, b.router) != authorized - y.reserveHold) ++ghostBadMoves;
        if (n.others != b.others) ++ghostStrangerGains;
        ghostAuthorized[id] = 0;
        ghostHeld = _sub(ghostHeld, authorized);
        ghostOrderReserve[id] = y.reserveHold;
        ghostReserve += y.reserveHold;
        ghostReleaseAfter[id] = block.timestamp + ghostHold;
        ++ghostCaptures;
        if (c < authorized) ++ghostPartialCaptures;
    }

    function _returned(bytes32 id, Balances memory b) internal {
        uint256 authorized = ghostAuthorized[id];
        Balances memory n = _balances(id);
        if (_gain(b.payer, n.payer) != authorized || _gain(n.router, b.router) != authorized) ++ghostBadMoves;
        if (n.treasury != b.treasury || n.platform != b.platform || n.merchant != b.merchant) ++ghostStrangerGains;
        if (n.others != b.others) ++ghostStrangerGains;
        ghostAuthorized[id] = 0;
        ghostHeld = _sub(ghostHeld, authorized);
        ++ghostReturns;
    }

    function _balances(bytes32 id) internal view returns (Balances memory x) {
        address payer = ghostPayer[id];
        x.router = usdc.balanceOf(address(router));
        x.payer = usdc.balanceOf(payer);
        x.treasury = usdc.balanceOf(router.serviceTreasury());
        x.platform = usdc.balanceOf(platform);
        x.merchant = usdc.balanceOf(merchant);
        x.others = usdc.balanceOf(funder) + usdc.balanceOf(operator) + usdc.balanceOf(owner);
        for (uint256 i; i < ACTORS; ++i) {
            if (actor(i) != payer) x.others += usdc.balanceOf(actor(i));
        }
    }

    /// @dev after - before, counting a loss as a bad move.
    function _gain(uint256 before, uint256 later) internal returns (uint256) {
        return later >= before ? later - before : _sub(0, before - later);
    }

    /// @dev Three times in four the nearest authorization still held at or before _pick's choice (any held one,
    ///      searching backwards and wrapping), else _pick's choice itself.
    function _pickAuthorized(uint256 index) internal view returns (uint256 at) {
        uint256 len = orderIds.length;
        at = _pick(index, len);
        if (index % 4 == 0) return at;
        for (uint256 back; back < len; ++back) {
            uint256 i = (at + len - back) % len;
            if (ghostAuthorized[orderIds[i]] != 0) return i;
        }
    }
}
