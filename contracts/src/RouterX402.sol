// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {RouterCore} from "./RouterCore.sol";
import {TransferAuthorization} from "./TransferAuthorization.sol";

/// @title RouterX402
/// @notice Payment by an unmodified x402 `exact` client: the buyer signs USDC's ERC-3009
///         TransferWithAuthorization(from, to = router, value, validAfter, validBefore, random nonce), which names
///         the router and the amount but not the order. The router pulls it and splits it like {payOrder}; if a
///         third party submitted it straight to the token first, the operator attributes the funds that landed
///         in the router to the order, or returns them to a second payer of an order already paid.
/// @dev The order is bound to the authorization by the payer lock (order.payer == from, signed by the service),
///      the amount and the deadline; each (from, nonce) counts once (x402Consumed). Attribution and return spend
///      only the unattributed balance, balanceOf - reserved - held, so the invariant balanceOf(router) >=
///      reserved + held holds by construction.
abstract contract RouterX402 is RouterCore {
    using SafeERC20 for IERC20;

    /// @inheritdoc IPaymentRouter
    mapping(address from => mapping(bytes32 nonce => bool)) public x402Consumed;

    /// @inheritdoc IPaymentRouter
    function payOrderWithTransfer(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external nonReentrant whenNotPaused {
        bytes32 digest = _checkX402(order, signature, from, validBefore, nonce);
        uint256 releaseAfter = _record(order, digest, from);
        TransferAuthorization.transferExact(
            order.token, from, order.amount, validAfter, validBefore, nonce, authorization
        );
        _complete(order, from, releaseAfter);
        emit X402Settled(order.orderId, from, nonce);
    }

    /// @inheritdoc IPaymentRouter
    function attributeTransfer(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external onlyOperator nonReentrant whenNotPaused {
        bytes32 digest = _checkX402(order, signature, from, validBefore, nonce);
        TransferAuthorization.requireUsed(
            order.token, from, order.amount, validAfter, validBefore, nonce, authorization
        );
        _requireUnattributed(order.token, order.amount);
        uint256 releaseAfter = _record(order, digest, from);
        _complete(order, from, releaseAfter);
        emit X402Attributed(order.orderId, from, nonce);
    }

    /// @inheritdoc IPaymentRouter
    function returnTransfer(
        address token,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external onlyOperator nonReentrant {
        if (value == 0) revert ZeroAmount();
        _consume(from, nonce);
        TransferAuthorization.requireUsed(token, from, value, validAfter, validBefore, nonce, authorization);
        _requireUnattributed(token, value);
        IERC20(token).safeTransfer(from, value);
        emit X402Returned(token, from, nonce, value);
    }

    /// @dev Every {payOrder} check for payer `from`, and the x402 ones: a non-zero payer lock (the signed
    ///      order is what ties an authorization that names no order to this order), an authorization that
    ///      cannot outlive the order, and a (from, nonce) not counted before, which is then marked consumed.
    function _checkX402(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validBefore,
        bytes32 nonce
    ) private returns (bytes32 digest) {
        if (order.payer == address(0)) revert PayerLockRequired(order.orderId);
        digest = hashPayOrder(order);
        _checkOrder(order, digest, signature, from);
        // Subtraction, not deadline + 1, so an absurd deadline cannot overflow past the check.
        if (validBefore > order.deadline && validBefore - order.deadline > 1) {
            revert AuthorizationOutlivesOrder(validBefore, order.deadline);
        }
        _consume(from, nonce);
    }

    function _consume(address from, bytes32 nonce) private {
        if (x402Consumed[from][nonce]) revert X402NonceConsumed(from, nonce);
        x402Consumed[from][nonce] = true;
    }

    /// @dev Reverts unless the router holds at least `needed` of `token` beyond what it owes.
    function _requireUnattributed(address token, uint256 needed) private view {
        uint256 available = IERC20(token).balanceOf(address(this)) - reserved[token] - held[token];
        if (available < needed) revert InsufficientUnattributed(available, needed);
    }
}
