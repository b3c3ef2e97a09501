// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {RouterSignatures} from "./RouterSignatures.sol";

/// @title RouterCore
/// @notice The router's books and the steps every way money enters shares: the checks on a PayOrder, recording
///         it (paid, or authorized and held), the split of what was received, and exact pulls and pushes.
/// @dev Invariant, per token: balanceOf(router) >= reserved[token] + held[token] (equal unless someone sent
///      tokens to the router directly). Later entry points (x402 attribution, a subscription module hook) are to
///      enter through _checkOrder / _record / _complete as well, so they keep it by construction.
abstract contract RouterCore is RouterSignatures, Ownable2Step, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Bounds a batch's gas: 100 token transfers fit comfortably in a block.
    uint256 public constant MAX_BATCH_SIZE = 100;
    /// @notice Upper bound on the reserve hold, so a mistaken setting cannot lock reserves for years.
    uint256 public constant MAX_RESERVE_HOLD = 365 days;
    /// @notice Longest a payer's funds can be held by an authorization before the payer may reclaim them.
    uint256 public constant MAX_AUTHORIZATION_PERIOD = 60 days;

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
    /// @inheritdoc IPaymentRouter
    mapping(address token => uint256) public held;
    /// @inheritdoc IPaymentRouter
    mapping(bytes32 orderId => bytes32) public authorizationDigest;
    mapping(bytes32 orderId => Order) internal _orders;

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    /// @inheritdoc IPaymentRouter
    function orders(bytes32 orderId) external view returns (Order memory) {
        return _orders[orderId];
    }

    /// @dev Every check a payment of `order` by `payer` must pass, whichever way the funds arrive.
    function _checkOrder(PayOrder calldata order, bytes32 digest, bytes calldata signature, address payer)
        internal
        view
    {
        _requireSigner(digest, signature);
        _checkTerms(order, payer);
    }

    /// @dev Every check of {_checkOrder} except the service signer's signature, in the same order: for a caller
    ///      that is itself the authority for the order (a registered module).
    function _checkTerms(PayOrder calldata order, address payer) internal view {
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
        uint256 captureDeadline = order.captureDeadline;
        if (
            captureDeadline != 0
                && (captureDeadline <= block.timestamp || captureDeadline - block.timestamp > MAX_AUTHORIZATION_PERIOD)
        ) revert CaptureDeadlineInvalid(captureDeadline, block.timestamp);
    }

    /// @dev Marks the order paid by `payer` before any token moves (checks-effects-interactions): with its
    ///      reserve booked, or, for an authorization, with the whole amount held and the signed digest kept.
    ///      Fields are written one by one so the zeros an order does not use cost no storage writes.
    function _record(PayOrder calldata order, bytes32 digest, address payer) internal returns (uint256 releaseAfter) {
        Order storage o = _orders[order.orderId];
        o.token = order.token;
        o.paid = true;
        o.payer = payer;
        o.merchant = order.merchant;
        if (order.captureDeadline != 0) {
            o.authorized = order.amount;
            o.captureDeadline = order.captureDeadline;
            authorizationDigest[order.orderId] = digest;
            held[order.token] += order.amount;
            return 0;
        }
        releaseAfter = block.timestamp + reserveHoldSeconds;
        o.amount = order.amount;
        o.reserve = order.reserveHold;
        o.releaseAfter = releaseAfter;
        reserved[order.token] += order.reserveHold;
    }

    /// @dev After the router received `order.amount`: split it now, or leave it held as authorized.
    function _complete(PayOrder calldata order, address payer, uint256 releaseAfter) internal {
        if (order.captureDeadline == 0) {
            _split(order, payer, releaseAfter);
        } else {
            emit OrderAuthorized(
                order.orderId, payer, order.merchant, order.token, order.amount, order.platform, order.captureDeadline
            );
        }
    }

    /// @dev Pushes the shares of `order.amount`, which the router holds; the reserve stays. Used for a payment
    ///      as signed and for a capture (with the captured amount and its split).
    function _split(PayOrder memory order, address payer, uint256 releaseAfter) internal {
        IERC20 token = IERC20(order.token);
        uint256 amount = order.amount;
        // A recipient the token refuses (e.g. a USDC-blocklisted wallet) reverts the whole payment or capture:
        // the funds stay where they were.
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
    function _pullExact(IERC20 token, uint256 amount) internal {
        uint256 before = token.balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), amount);
        uint256 received = token.balanceOf(address(this)) - before;
        if (received != amount) revert BalanceDeltaMismatch(amount, received);
    }

    function _push(IERC20 token, address to, uint256 amount) internal {
        if (amount != 0) token.safeTransfer(to, amount);
    }
}
