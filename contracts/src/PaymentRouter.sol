// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {ReceiveAuthorization} from "./ReceiveAuthorization.sol";
import {RouterSignatures} from "./RouterSignatures.sol";

/// @title Trisettle PaymentRouter
/// @notice Non-custodial split router: shares are pushed in the paying transaction; the router only ever
///         holds the reserves of paid orders (invariant: balance == Σ order.reserve per token).
/// @dev Any token the service signs is accepted (no allowlist): the token is part of the signed PayOrder,
///      so only the service chooses it, and every order's money stays accounted to that order's token.
contract PaymentRouter is RouterSignatures, Ownable2Step, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Bounds a batch's gas: 100 token transfers fit comfortably in a block.
    uint256 public constant MAX_BATCH_SIZE = 100;
    /// @notice Upper bound on the reserve hold, so a mistaken setting cannot lock reserves for years.
    uint256 public constant MAX_RESERVE_HOLD = 365 days;

    /// @inheritdoc IPaymentRouter
    mapping(bytes32 refundId => bool) public refundUsed;
    /// @inheritdoc IPaymentRouter
    mapping(bytes32 batchId => bool) public batchSettled;
    /// @inheritdoc IPaymentRouter
    address public operator;
    /// @inheritdoc IPaymentRouter
    address public serviceTreasury;
    /// @inheritdoc IPaymentRouter
    mapping(bytes32 refundId => bool) public refundCancelled;
    /// @inheritdoc IPaymentRouter
    mapping(bytes32 orderId => bool) public orderCancelled;
    /// @inheritdoc IPaymentRouter
    mapping(address token => uint256) public reserved;
    /// @inheritdoc IPaymentRouter
    uint256 public reserveHoldSeconds;
    mapping(bytes32 orderId => Order) private _orders;

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

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
        uint256 releaseAfter = _record(order, from);
        ReceiveAuthorization.receiveExact(
            order.token, from, order.amount, validAfter, validBefore, nonce, authorization
        );
        _split(order, from, releaseAfter);
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
            // Skip rather than revert: a refund may have consumed the reserve after the batch was built.
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
        uint256 excess = IERC20(token).balanceOf(address(this)) - reserved[token];
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

    /// @inheritdoc IPaymentRouter
    function orders(bytes32 orderId) external view returns (Order memory) {
        return _orders[orderId];
    }

    function _pay(PayOrder calldata order, bytes calldata signature) private {
        _checkOrder(order, hashPayOrder(order), signature, msg.sender);
        uint256 releaseAfter = _record(order, msg.sender);
        _pullExact(IERC20(order.token), order.amount);
        _split(order, msg.sender, releaseAfter);
    }

    /// @dev Every check a payment of `order` by `payer` must pass, whichever way the funds arrive.
    function _checkOrder(PayOrder calldata order, bytes32 digest, bytes calldata signature, address payer)
        private
        view
    {
        _requireSigner(digest, signature);
        if (block.timestamp > order.deadline) revert OrderExpired(order.deadline, block.timestamp);
        if (order.payer != address(0) && payer != order.payer) revert WrongPayer(order.payer, payer);
        if (_orders[order.orderId].paid) revert AlreadyPaid(order.orderId);
        if (orderCancelled[order.orderId]) revert OrderCancelled(order.orderId);
        if (order.amount == 0) revert ZeroAmount();
        if (order.merchant == address(0) || order.platform == address(0) || payer == address(0)) {
            revert ZeroAddress();
        }
        // Written as subtractions so absurd fee values cannot overflow past the check.
        uint256 amount = order.amount;
        if (
            order.serviceFee > amount || order.platformFee > amount - order.serviceFee
                || order.reserveHold > amount - order.serviceFee - order.platformFee
        ) revert FeesExceedAmount(amount, order.serviceFee, order.platformFee, order.reserveHold);
    }

    /// @dev Marks the order paid by `payer` before any token moves (checks-effects-interactions).
    function _record(PayOrder calldata order, address payer) private returns (uint256 releaseAfter) {
        releaseAfter = block.timestamp + reserveHoldSeconds;
        _orders[order.orderId] =
            Order(order.token, true, payer, order.merchant, order.amount, order.reserveHold, 0, releaseAfter);
        reserved[order.token] += order.reserveHold;
    }

    /// @dev Pushes the shares of `order.amount`, which the router has just received; the reserve stays.
    function _split(PayOrder calldata order, address payer, uint256 releaseAfter) private {
        IERC20 token = IERC20(order.token);
        uint256 amount = order.amount;
        // A recipient the token refuses (e.g. a USDC-blocklisted wallet) reverts the whole payment: the buyer
        // keeps the funds and the order stays payable.
        _push(token, serviceTreasury, order.serviceFee);
        _push(token, order.platform, order.platformFee);
        _push(token, order.merchant, amount - order.serviceFee - order.platformFee - order.reserveHold);
        emit OrderPaid(
            order.orderId,
            payer,
            order.merchant,
            order.token,
            amount,
            order.serviceFee,
            order.platformFee,
            order.reserveHold,
            order.platform,
            releaseAfter
        );
    }

    /// @dev Pulls `amount` from msg.sender and insists the router received exactly that, so fee-on-transfer
    ///      and similar tokens can never leave the router short of the reserves it records.
    function _pullExact(IERC20 token, uint256 amount) private {
        uint256 before = token.balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), amount);
        uint256 received = token.balanceOf(address(this)) - before;
        if (received != amount) revert BalanceDeltaMismatch(amount, received);
    }

    function _push(IERC20 token, address to, uint256 amount) private {
        if (amount != 0) token.safeTransfer(to, amount);
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
