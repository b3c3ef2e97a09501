// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {HandlerBase} from "./HandlerBase.sol";

/// @notice The outcome the router must produce for a payment or a refund, written from the spec in the
///         router's check order: empty for success, else the exact revert data.
abstract contract HandlerModel is HandlerBase {
    /// @dev What payOrder / payOrderWithPermit must do for `s` paid by `who`, in the router's check order.
    function _expectPay(Signed memory s, address who, bool viaPermit) internal view returns (bytes memory) {
        IPaymentRouter.PayOrder memory o = s.order;
        if (ghostPaused) return abi.encodeWithSignature("EnforcedPause()");
        if (!_ghostSigner[s.signerIndex]) {
            return abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(signerKey(s.signerIndex)));
        }
        if (block.timestamp > o.deadline) {
            return abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, block.timestamp);
        }
        if (o.payer != address(0) && who != o.payer) {
            return abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, o.payer, who);
        }
        if (ghostPaid[o.orderId]) return abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId);
        if (ghostCancelled[o.orderId]) {
            return abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId);
        }
        uint256 captureDeadline = o.captureDeadline;
        if (captureDeadline != 0 && (captureDeadline <= block.timestamp || captureDeadline - block.timestamp > 60 days))
        {
            return
                abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, captureDeadline, block.timestamp);
        }
        if (!viaPermit && !_isApprover(who)) {
            return
                abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, o.amount);
        }
        return "";
    }

    /// @dev What refund must do for `s` submitted by `submitter`, in the router's check order.
    function _expectRefund(SignedRefund memory s, address submitter) internal view returns (bytes memory) {
        IPaymentRouter.RefundOrder memory r = s.refund;
        if (ghostPaused) return abi.encodeWithSignature("EnforcedPause()");
        if (!_ghostSigner[s.signerIndex]) {
            return abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(signerKey(s.signerIndex)));
        }
        if (block.timestamp > r.deadline) {
            return abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, r.deadline, block.timestamp);
        }
        if (ghostRefundUsed[r.refundId]) {
            return abi.encodeWithSelector(IPaymentRouter.RefundAlreadyUsed.selector, r.refundId);
        }
        if (!ghostPaid[r.orderId]) return abi.encodeWithSelector(IPaymentRouter.OrderNotPaid.selector, r.orderId);
        if (ghostAuthorized[r.orderId] != 0) {
            return abi.encodeWithSelector(IPaymentRouter.NotCaptured.selector, r.orderId);
        }
        IPaymentRouter.Order memory o = router.orders(r.orderId);
        if (r.to != o.payer) return abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, o.payer, r.to);
        uint256 refundable = o.amount - o.refunded;
        if (r.amount > refundable) {
            return abi.encodeWithSelector(IPaymentRouter.RefundExceedsOrder.selector, r.orderId, r.amount, refundable);
        }
        uint256 fromSubmitter = r.amount > o.reserve ? r.amount - o.reserve : 0;
        if (fromSubmitter != 0 && submitter != funder) {
            return
                abi.encodeWithSelector(
                    IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, fromSubmitter
                );
        }
        return "";
    }
}
