// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {LibClone} from "solady/utils/LibClone.sol";
import {SafeTransferLib} from "solady/utils/SafeTransferLib.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {DepositTerms, IDepositForwarder} from "./IDepositForwarder.sol";

/// @title Trisettle DepositForwarder (implementation of the per-order deposit addresses)
/// @notice Each deposit address is a solady LibClone minimal proxy with immutable args
///         `abi.encode(router, DepositTerms, refundTo)` (11 words), deployed with CREATE2 by {DepositFactory}.
///         The args are part of the clone's code, so its address commits to the router, every term of the order
///         and refundTo; nothing is stored and nothing can be changed.
///
///         - {sweep}(signature), anyone: past the deadline (block.timestamp > deadline), the whole balance goes to
///           refundTo without calling the router (a paused or broken router cannot strand it); else if the router
///           says the order is paid (by anyone, including this address: a router refund lands here) or cancelled,
///           the whole balance goes to refundTo; else with at least `amount`, it approves the router for exactly
///           `amount`, calls `payOrder` with payer = address(this) and captureDeadline = 0, resets the allowance to
///           0 and sends what is left to refundTo; else it reverts Underpaid (the funds wait for a top-up).
///         - {returnToken}(token), anyone: another token goes whole to refundTo; the order's token only when sweep
///           would return it.
///
///         Tokens leave only to the router (exactly `amount`, once: the router refuses a paid orderId) or to
///         refundTo. No owner, no admin, no upgrade, no ETH, no selfdestruct, no delegatecall.
/// @dev The service must sign the router's PayOrder with payer = the deposit address (DepositFactory.predict), so
///      that signature is usable by this clone only; the signature is calldata, not an arg (no address cycle).
contract DepositForwarder is IDepositForwarder {
    uint8 internal constant RETURN_LATE = 1;
    uint8 internal constant RETURN_SETTLED = 2;
    uint8 internal constant RETURN_EXCESS = 3;
    uint8 internal constant RETURN_OTHER_TOKEN = 4;
    /// @dev abi.encode(address, DepositTerms (9 static words), address).
    uint256 internal constant ARGS_LENGTH = 11 * 32;

    /// @dev The implementation's own address: code running at it (not through a clone) refuses to act.
    address private immutable _self = address(this);

    /// @inheritdoc IDepositForwarder
    function sweep(bytes calldata signature) external returns (uint256 paid, uint256 returned) {
        (address router, DepositTerms memory t, address refundTo) = _args();
        uint256 balance = SafeTransferLib.balanceOf(t.token, address(this));
        // The deadline is checked first and alone: this path must not depend on the router at all.
        if (block.timestamp > t.deadline) return (0, _return(t.orderId, t.token, refundTo, balance, RETURN_LATE));
        if (_settled(router, t.orderId)) return (0, _return(t.orderId, t.token, refundTo, balance, RETURN_SETTLED));
        if (balance < t.amount) revert Underpaid(balance, t.amount);

        SafeTransferLib.safeApprove(t.token, router, t.amount);
        IPaymentRouter(router).payOrder(_payOrder(t), signature);
        SafeTransferLib.safeApprove(t.token, router, 0);
        paid = t.amount;
        returned =
            _return(t.orderId, t.token, refundTo, SafeTransferLib.balanceOf(t.token, address(this)), RETURN_EXCESS);
        emit DepositSwept(t.orderId, paid, returned);
    }

    /// @inheritdoc IDepositForwarder
    function returnToken(address token) external returns (uint256 returned) {
        (address router, DepositTerms memory t, address refundTo) = _args();
        uint256 balance = SafeTransferLib.balanceOf(token, address(this));
        if (token != t.token) return _return(t.orderId, token, refundTo, balance, RETURN_OTHER_TOKEN);
        if (block.timestamp > t.deadline) return _return(t.orderId, token, refundTo, balance, RETURN_LATE);
        if (_settled(router, t.orderId)) return _return(t.orderId, token, refundTo, balance, RETURN_SETTLED);
        revert NotReturnable(t.orderId);
    }

    /// @inheritdoc IDepositForwarder
    function terms() external view returns (address router, DepositTerms memory depositTerms, address refundTo) {
        return _args();
    }

    function _args() private view returns (address router, DepositTerms memory t, address refundTo) {
        if (address(this) == _self) revert NotADeposit();
        bytes memory args = LibClone.argsOnClone(address(this));
        if (args.length != ARGS_LENGTH) revert NotADeposit();
        (router, t, refundTo) = abi.decode(args, (address, DepositTerms, address));
    }

    /// @dev Paid by any method (an authorization counts: the router marks it paid too) or cancelled by the operator.
    function _settled(address router, bytes32 orderId) private view returns (bool) {
        return IPaymentRouter(router).orders(orderId).paid || IPaymentRouter(router).orderCancelled(orderId);
    }

    function _payOrder(DepositTerms memory t) private view returns (IPaymentRouter.PayOrder memory) {
        return IPaymentRouter.PayOrder({
            orderId: t.orderId,
            token: t.token,
            amount: t.amount,
            payer: address(this),
            merchant: t.merchant,
            platform: t.platform,
            serviceFee: t.serviceFee,
            platformFee: t.platformFee,
            reserveHold: t.reserveHold,
            deadline: t.deadline,
            captureDeadline: 0
        });
    }

    /// @dev Sends `amount` of `token` to refundTo (nothing, and no event, for 0). A token that refuses (e.g. USDC
    ///      with refundTo blocklisted) reverts the call: the funds stay here.
    function _return(bytes32 orderId, address token, address refundTo, uint256 amount, uint8 reason)
        private
        returns (uint256)
    {
        if (amount == 0) return 0;
        SafeTransferLib.safeTransfer(token, refundTo, amount);
        emit DepositReturned(orderId, refundTo, token, amount, reason);
        return amount;
    }
}
