// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The terms of one order paid through a deposit address: a PaymentRouter PayOrder without its payer
///         (the payer is the deposit address itself) and without captureDeadline (always 0: a deposit pays at once).
/// @dev Field order is part of the clone's immutable args (abi.encode(router, terms, refundTo)) and so of every
///      deposit address: do not reorder.
struct DepositTerms {
    bytes32 orderId;
    address token;
    uint256 amount;
    address merchant;
    address platform;
    uint256 serviceFee;
    uint256 platformFee;
    uint256 reserveHold;
    uint256 deadline;
}

/// @title Trisettle deposit address (one per order)
/// @notice A counterfactual address a buyer can fund with a plain token transfer. Its funds can only pay the
///         router for its one order, with the split fixed in its code, or go back to the refund address fixed in its
///         code. Nobody — not the service's signer, operator or owner — can send them anywhere else.
interface IDepositForwarder {
    /// @notice The order was paid: `paid` (= the order's amount) went to the router, `returned` (any excess over
    ///         the amount) to refundTo (a DepositReturned with reason RETURN_EXCESS precedes it when `returned` > 0).
    event DepositSwept(bytes32 indexed orderId, uint256 paid, uint256 returned);
    /// @notice `amount` of `token` went to `to` (always the clone's refundTo). `reason`: 1 = past the order's
    ///         deadline, 2 = the order is already paid (by any method, incl. this address: then this is e.g. a router
    ///         refund passed on) or cancelled, 3 = excess over the amount after paying, 4 = a token other than
    ///         the order's.
    event DepositReturned(
        bytes32 indexed orderId, address indexed to, address indexed token, uint256 amount, uint8 reason
    );

    /// @notice Fewer tokens than the order's amount arrived and the deadline has not passed: wait for a top-up.
    error Underpaid(uint256 balance, uint256 amount);
    /// @notice {returnToken} of the order's own token while the order can still be paid.
    error NotReturnable(bytes32 orderId);
    /// @notice Called on the implementation itself, or on a clone whose args are not this contract's layout.
    error NotADeposit();

    /// @notice Pays the order or returns the funds, whichever applies; anyone may call.
    /// @param signature the service signer's 65-byte signature over the router's PayOrder with these terms,
    ///        payer = this address and captureDeadline = 0 (unused on the return paths: pass empty bytes).
    function sweep(bytes calldata signature) external returns (uint256 paid, uint256 returned);

    /// @notice Returns the whole balance of `token` to refundTo: always for a token other than the order's; for
    ///         the order's token only when {sweep} would return it (past the deadline, or paid or cancelled).
    function returnToken(address token) external returns (uint256 returned);

    /// @notice The clone's immutable args: the router, the order terms and the refund address.
    function terms() external view returns (address router, DepositTerms memory depositTerms, address refundTo);
}
