// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {ReceiveAuthorization} from "./ReceiveAuthorization.sol";
import {RouterEscrow} from "./RouterEscrow.sol";
import {RouterModules} from "./RouterModules.sol";
import {RouterX402} from "./RouterX402.sol";

/// @title Trisettle PaymentRouter
/// @notice Split router: shares are pushed in the paying transaction; the router holds only the reserves of
///         paid orders and the authorizations not yet captured (invariant, per token: balance >= reserved +
///         held, == unless tokens were sent to it directly).
/// @dev Any token the service signs is accepted (no allowlist): the token is part of the signed PayOrder,
///      so only the service chooses it, and every order's money stays accounted to that order's token.
///      Books and shared steps: RouterCore; capture, void and reclaim: RouterEscrow; x402: RouterX402; the module
///      hook (subscriptions): RouterModules.
contract PaymentRouter is RouterEscrow, RouterX402, RouterModules {
    using SafeERC20 for IERC20;

    constructor(address owner_, address signer_, address operator_, address treasury_, uint256 reserveHold_)
        Ownable(owner_)
    {
        _setSigner(signer_, true);
        _setOperator(operator_);
        _setServiceTreasury(treasury_);
        _setReserveHold(reserveHold_);
    }

    /// @inheritdoc IPaymentRouter
    function payOrder(PayOrder calldata order, bytes calldata signature) external nonReentrant whenNotPaused {
        _pay(order, signature);
    }

    /// @inheritdoc IPaymentRouter
    function payOrderWithPermit(
        PayOrder calldata order,
        bytes calldata signature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external nonReentrant whenNotPaused {
        // Anyone can copy a permit from the mempool and submit it first; that must not make the payment
        // fail. If the permit reverts we carry on, and transferFrom decides on the allowance it left.
        try IERC20Permit(order.token).permit(msg.sender, address(this), order.amount, permitDeadline, v, r, s) {}
            catch {}
        _pay(order, signature);
    }

    /// @inheritdoc IPaymentRouter
    function payOrderWithAuthorization(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external nonReentrant whenNotPaused {
        bytes32 digest = hashPayOrder(order);
        _checkOrder(order, digest, signature, from);
        if (nonce != digest) revert AuthorizationNotForOrder(digest, nonce);
        // Subtraction, not deadline + 1, so an absurd deadline cannot overflow past the check.
        if (validBefore > order.deadline && validBefore - order.deadline > 1) {
            revert AuthorizationOutlivesOrder(validBefore, order.deadline);
        }
        // The pull's logs are the same pair a front-run x402 transfer leaves (see proveArrival): consumed here,
        // they can never be attributed or returned after paying this order.
        _consume(from, nonce);
        uint256 releaseAfter = _record(order, digest, from);
        ReceiveAuthorization.receiveExact(
            order.token, from, order.amount, validAfter, validBefore, nonce, authorization
        );
        _complete(order, from, releaseAfter);
    }

    /// @inheritdoc IPaymentRouter
    function refund(RefundOrder calldata ro, bytes calldata signature) external nonReentrant whenNotPaused {
        _requireSigner(hashRefundOrder(ro), signature);
        if (block.timestamp > ro.deadline) revert OrderExpired(ro.deadline, block.timestamp);
        if (refundUsed[ro.refundId]) revert RefundAlreadyUsed(ro.refundId);
        if (ro.amount == 0) revert ZeroAmount();
        if (ro.to == address(0)) revert ZeroAddress();
        Order storage o = _orders[ro.orderId];
        if (!o.paid) revert OrderNotPaid(ro.orderId);
        // Only an authorization has amount 0 (held, or voided / reclaimed); a paid order skips the cold read.
        if (o.amount == 0 && o.authorized != 0) revert NotCaptured(ro.orderId);
        // A stolen signer key can then only send money back to whoever paid, never to itself.
        if (ro.to != o.payer) revert RefundNotToPayer(o.payer, ro.to);
        uint256 refundable = o.amount - o.refunded;
        if (ro.amount > refundable) revert RefundExceedsOrder(ro.orderId, ro.amount, refundable);

        // Effects before any token call: the reserve is spent first so the submitter funds only the rest.
        uint256 fromReserve = ro.amount < o.reserve ? ro.amount : o.reserve;
        uint256 fromSubmitter = ro.amount - fromReserve;
        refundUsed[ro.refundId] = true;
        o.reserve -= fromReserve;
        o.refunded += ro.amount;
        reserved[o.token] -= fromReserve;

        IERC20 token = IERC20(o.token);
        if (fromSubmitter != 0) _pullExact(token, fromSubmitter);
        token.safeTransfer(ro.to, ro.amount);
        emit Refunded(ro.orderId, ro.refundId, ro.to, ro.amount, fromReserve, fromSubmitter);
    }

    /// @inheritdoc IPaymentRouter
    function settleBatch(bytes32 batchId, bytes32[] calldata orderIds)
        external
        onlyOperator
        nonReentrant
        whenNotPaused
    {
        if (orderIds.length == 0 || orderIds.length > MAX_BATCH_SIZE) {
            revert InvalidBatchSize(orderIds.length, MAX_BATCH_SIZE);
        }
        if (batchSettled[batchId]) revert BatchAlreadySettled(batchId);
        batchSettled[batchId] = true;

        uint256 count;
        uint256 total;
        for (uint256 i; i < orderIds.length; ++i) {
            Order storage o = _orders[orderIds[i]];
            uint256 amount = o.reserve;
            // Skip rather than revert: a refund may have consumed the reserve after the batch was built. An
            // authorization not captured has no reserve yet, so it is skipped too.
            // The hold was fixed at payment, so a stolen operator key cannot release a reserve early.
            if (amount == 0 || block.timestamp < o.releaseAfter) continue;
            o.reserve = 0;
            reserved[o.token] -= amount;
            // One merchant the token refuses (e.g. USDC-blocklisted) must not hold up everyone else's
            // release: its reserve stays recorded and a later batch can retry.
            if (!IERC20(o.token).trySafeTransfer(o.merchant, amount)) {
                o.reserve = amount;
                reserved[o.token] += amount;
                emit ReserveReleaseFailed(orderIds[i], batchId, o.merchant, amount);
                continue;
            }
            ++count;
            total += amount;
            emit ReserveReleased(orderIds[i], batchId, o.merchant, amount);
        }
        emit BatchSettled(batchId, count, total);
    }

    /// @inheritdoc IPaymentRouter
    function cancelOrders(bytes32[] calldata orderIds) external onlyOperator nonReentrant {
        if (orderIds.length == 0 || orderIds.length > MAX_BATCH_SIZE) {
            revert InvalidBatchSize(orderIds.length, MAX_BATCH_SIZE);
        }
        for (uint256 i; i < orderIds.length; ++i) {
            bytes32 id = orderIds[i];
            if (_orders[id].paid || orderCancelled[id]) continue;
            orderCancelled[id] = true;
            emit PayOrderCancelled(id);
        }
    }

    /// @inheritdoc IPaymentRouter
    function cancelRefund(bytes32 refundId) external onlyOperator nonReentrant {
        if (refundUsed[refundId]) revert RefundAlreadyUsed(refundId);
        refundUsed[refundId] = true;
        refundCancelled[refundId] = true;
        emit RefundCancelled(refundId);
    }

    /// @inheritdoc IPaymentRouter
    function recoverExcess(address token, address to) external onlyOwner nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        uint256 excess = IERC20(token).balanceOf(address(this)) - reserved[token] - held[token];
        if (excess == 0) revert ZeroAmount();
        IERC20(token).safeTransfer(to, excess);
        emit ExcessRecovered(token, to, excess);
    }

    /// @inheritdoc IPaymentRouter
    function setReserveHold(uint256 holdSeconds) external onlyOwner {
        _setReserveHold(holdSeconds);
    }

    /// @inheritdoc IPaymentRouter
    function addSigner(address signer) external onlyOwner {
        _setSigner(signer, true);
    }

    /// @inheritdoc IPaymentRouter
    function removeSigner(address signer) external onlyOwner {
        _setSigner(signer, false);
    }

    /// @inheritdoc IPaymentRouter
    function setOperator(address operator_) external onlyOwner {
        _setOperator(operator_);
    }

    /// @inheritdoc IPaymentRouter
    function setServiceTreasury(address treasury) external onlyOwner {
        _setServiceTreasury(treasury);
    }

    /// @dev Without an owner no one could rotate a leaked signer or pause: renouncing is not offered.
    function renounceOwnership() public pure override {
        revert RenounceDisabled();
    }

    /// @inheritdoc IPaymentRouter
    function pause() external onlyOwner {
        _pause();
    }

    /// @inheritdoc IPaymentRouter
    function unpause() external onlyOwner {
        _unpause();
    }

    function _pay(PayOrder calldata order, bytes calldata signature) private {
        bytes32 digest = hashPayOrder(order);
        _checkOrder(order, digest, signature, msg.sender);
        uint256 releaseAfter = _record(order, digest, msg.sender);
        _pullExact(IERC20(order.token), order.amount);
        _complete(order, msg.sender, releaseAfter);
    }

    function _setOperator(address operator_) private {
        if (operator_ == address(0)) revert ZeroAddress();
        emit OperatorUpdated(operator, operator_);
        operator = operator_;
    }

    function _setReserveHold(uint256 holdSeconds) private {
        if (holdSeconds > MAX_RESERVE_HOLD) revert HoldTooLong(holdSeconds, MAX_RESERVE_HOLD);
        emit ReserveHoldUpdated(reserveHoldSeconds, holdSeconds);
        reserveHoldSeconds = holdSeconds;
    }

    function _setServiceTreasury(address treasury) private {
        if (treasury == address(0)) revert ZeroAddress();
        emit ServiceTreasuryUpdated(serviceTreasury, treasury);
        serviceTreasury = treasury;
    }
}
