// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {RouterCore} from "./RouterCore.sol";

/// @title RouterEscrow
/// @notice Charge later: what happens to an authorization (a PayOrder paid with a captureDeadline) after the
///         router took the payer's funds. The operator captures all or part of it, split inside the window the
///         signed split allows, or voids it; from the capture deadline on anyone can return it to the payer.
/// @dev Capture needs block.timestamp < captureDeadline, reclaim block.timestamp >= captureDeadline, so in any
///      block at most one of them can succeed.
abstract contract RouterEscrow is RouterCore {
    using SafeERC20 for IERC20;

    /// @inheritdoc IPaymentRouter
    function capture(
        PayOrder calldata order,
        uint256 amount,
        uint256 serviceFee,
        uint256 platformFee,
        uint256 reserveHold
    ) external onlyOperator nonReentrant whenNotPaused {
        Order storage o = _orders[order.orderId];
        uint256 authorized = _requireCapturable(order, o, amount);
        PayOrder memory captured = order;
        captured.amount = amount;
        captured.serviceFee = serviceFee;
        captured.platformFee = platformFee;
        captured.reserveHold = reserveHold;
        _checkCaptureSplit(order, captured);

        // Effects before any token call; the reserve's hold runs from the capture.
        uint256 releaseAfter = block.timestamp + reserveHoldSeconds;
        o.authorized = 0;
        held[order.token] -= authorized;
        o.amount = amount;
        o.reserve = reserveHold;
        o.releaseAfter = releaseAfter;
        reserved[order.token] += reserveHold;

        emit OrderCaptured(order.orderId, authorized, amount, authorized - amount);
        address payer = o.payer;
        _split(captured, payer, releaseAfter);
        _push(IERC20(order.token), payer, authorized - amount);
    }

    /// @inheritdoc IPaymentRouter
    function voidAuthorization(bytes32 orderId) external onlyOperator nonReentrant {
        (address payer, uint256 amount) = _returnToPayer(_authorization(orderId));
        emit AuthorizationVoided(orderId, payer, amount);
    }

    /// @inheritdoc IPaymentRouter
    function reclaim(bytes32 orderId) external nonReentrant {
        Order storage o = _authorization(orderId);
        if (block.timestamp < o.captureDeadline) revert CaptureNotExpired(o.captureDeadline, block.timestamp);
        (address payer, uint256 amount) = _returnToPayer(o);
        emit AuthorizationReclaimed(orderId, payer, amount);
    }

    /// @dev The order's record, which must still hold an authorization.
    function _authorization(bytes32 orderId) private view returns (Order storage o) {
        o = _orders[orderId];
        if (o.authorized == 0) revert NotAuthorized(orderId);
    }

    /// @dev Capture's checks before the split: returns the authorized amount.
    function _requireCapturable(PayOrder calldata order, Order storage o, uint256 amount)
        private
        view
        returns (uint256 authorized)
    {
        bytes32 id = order.orderId;
        authorized = o.authorized;
        if (authorized == 0) revert NotAuthorized(id);
        // The stored digest pins every signed field (token, parties, split, deadlines) to what was authorized.
        if (hashPayOrder(order) != authorizationDigest[id]) revert AuthorizationMismatch(id);
        if (block.timestamp >= o.captureDeadline) revert CaptureExpired(o.captureDeadline, block.timestamp);
        if (amount == 0) revert ZeroAmount();
        if (amount > authorized) revert CaptureExceedsAuthorized(amount, authorized);
    }

    /// @dev The captured split must add up within the captured amount and each leg lie in the window the signed
    ///      full-amount split allows (see {IPaymentRouter-capture}). `signed.amount` is the authorized amount.
    function _checkCaptureSplit(PayOrder calldata signed, PayOrder memory c) private pure {
        uint256 amount = c.amount;
        uint256 s = c.serviceFee;
        uint256 p = c.platformFee;
        uint256 r = c.reserveHold;
        // Subtractions, so absurd values cannot overflow past the check.
        bool fits = s <= amount && p <= amount - s && r <= amount - s - p;
        if (fits) {
            uint256 grossSigned = signed.amount - signed.serviceFee - signed.platformFee;
            fits = _inWindow(amount, s, signed.amount, signed.serviceFee)
                && _inWindow(amount, p, signed.amount, signed.platformFee)
                && (grossSigned == 0 || _inWindow(amount - s - p, r, grossSigned, signed.reserveHold));
        }
        if (!fits) revert CaptureSplitOutOfBounds(amount, s, p, r);
    }

    /// @dev Whether `part` of `x` is in the window [⌊x·signedPart/total⌋, ⌈x·(signedPart+1)/total⌉ - 1], i.e.
    ///      ⌊x·signedPart/total⌋ <= part and part·total < x·(signedPart + 1); x == 0 allows only part == 0.
    ///      The caller has checked part <= x and 0 < total, signedPart <= total. mulDiv keeps every product
    ///      exact, so no amount a token allows can overflow.
    function _inWindow(uint256 x, uint256 part, uint256 total, uint256 signedPart) private pure returns (bool) {
        if (Math.mulDiv(x, signedPart, total) > part) return false;
        // part == 0 passed the lower bound; the upper one holds for x > 0, and x == 0 means the window {0}.
        // signedPart == total: the window is {x}, and part <= x.
        if (part == 0 || signedPart == total) return true;
        return part < Math.mulDiv(x, signedPart + 1, total, Math.Rounding.Ceil);
    }

    /// @dev Effects then the one transfer: the whole authorization back to the recorded payer.
    function _returnToPayer(Order storage o) private returns (address payer, uint256 amount) {
        payer = o.payer;
        amount = o.authorized;
        o.authorized = 0;
        held[o.token] -= amount;
        IERC20(o.token).safeTransfer(payer, amount);
    }
}
