// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "./IPaymentRouter.sol";

/// @title Trisettle SubscriptionManager interface
/// @notice Recurring charges under a payer-signed spend permission: at most `amount` per fixed-length period,
///         only inside [start, end), split as the payer signed (basis points), and never after the payer revokes.
///         Each charge is an order the router records and splits exactly as {IPaymentRouter-payOrder} (OrderPaid,
///         reserve, refunds), entered through the router's module hook {IPaymentRouter-payFromModule}.
/// @dev The payer signs SpendPermission as EIP-712 typed data over this contract's own domain {name: "Trisettle
///      Subscriptions", version: "1", chainId, verifyingContract}. The payer's token allowance (approve or
///      EIP-2612 permit) goes to this contract, never to the router. The operator is the router's
///      (`router.operator()`), so rotating it there rotates it here; the router's pause stops every charge.
interface ISubscriptionManager {
    /// @notice What the payer authorises once. Field order is part of the EIP-712 type hash: do not reorder.
    struct SpendPermission {
        address payer; // whose tokens are charged; signs this permission (EOA, or ERC-1271 contract wallet)
        address token; // ERC-20 charged (USDC)
        address merchant; // receives each charge minus fees minus reserve, and the reserve later
        address platform; // receives the platform fee
        uint160 amount; // most that may be charged per period, base units
        uint32 period; // period length in seconds (day 86,400; week 604,800; month = 30 days = 2,592,000;
            // year = 31,536,000; times the interval count)
        uint48 start; // unix seconds; period i is [start + i·period, start + (i+1)·period)
        uint48 end; // unix seconds, exclusive: no charge at or after it (type(uint48).max = no end)
        uint16 serviceFeeBps; // service fee = ⌊charge · serviceFeeBps / 10000⌋
        uint16 platformFeeBps; // platform fee = ⌊charge · platformFeeBps / 10000⌋
        uint16 reserveBps; // reserve = ⌊(charge - fees) · reserveBps / 10000⌋
        uint256 salt; // keccak256 of the service's subscription id ("sub_…"): one permission per subscription
    }

    /// @notice `amount` was charged for period `periodIndex` of the permission as order `orderId` (the router's
    ///         OrderPaid for the same order is in the same transaction).
    event Charged(bytes32 indexed permissionHash, bytes32 indexed orderId, uint256 periodIndex, uint256 amount);
    /// @notice The permission can never be charged again. `payer` is address(0) when the operator revoked it by
    ///         hash (the contract does not store payers); `by` is who revoked it.
    event PermissionRevoked(bytes32 indexed permissionHash, address indexed payer, address by);

    /// @notice Caller is not the router's operator.
    error NotOperator(address caller);
    /// @notice {revoke} by someone other than the permission's payer.
    error NotPayer(address caller, address payer);
    /// @notice The payer's signature over the permission is not valid (ECDSA for an EOA, ERC-1271 otherwise).
    error InvalidPayerSignature(address payer);
    /// @notice The permission was revoked by its payer or the operator.
    error Revoked(bytes32 permissionHash);
    /// @notice Charge before `start` or at or after `end`.
    error OutsideWindow(uint256 start, uint256 end, uint256 nowTs);
    /// @notice The current period of the permission was charged already.
    error PeriodAlreadyCharged(bytes32 permissionHash, uint256 periodIndex);
    /// @notice Charge of 0 or of more than the permission's amount per period.
    error InvalidChargeAmount(uint256 amount, uint256 max);
    /// @notice The permission cannot be charged as signed: period 0, or fee/reserve basis points above 10,000.
    error InvalidPermission(bytes32 permissionHash);
    error ZeroAddress();

    /// @notice Charge `amount` for the current period (operator only; reverts while the router is paused).
    /// @dev Checks, in order: the operator; the permission's shape (InvalidPermission); not revoked; start <= now
    ///      < end; the period index ⌊(now - start) / period⌋ not charged; 0 < amount <= p.amount; the payer's
    ///      signature over hashPermission(p) (EOA or ERC-1271; an undeployed ERC-6492 wallet fails). Marks the
    ///      period charged, pulls `amount` from the payer into this contract (the payer's allowance to it),
    ///      approves the router for exactly `amount` and calls router.payFromModule with PayOrder{orderId,
    ///      token, amount, payer, merchant, platform, serviceFee, platformFee, reserveHold (see {split}),
    ///      deadline = now, captureDeadline = 0}. The router's own checks apply (orderId unpaid and not
    ///      cancelled, non-zero parties) and it emits OrderPaid.
    /// @param payerSignature The payer's signature over the SpendPermission typed data (65-byte r‖s‖v for an
    ///        EOA, whatever the wallet's ERC-1271 check accepts for a contract).
    /// @param orderId keccak256 of the service's order id for this charge ("ord_…").
    function charge(SpendPermission calldata p, bytes calldata payerSignature, bytes32 orderId, uint256 amount)
        external;

    /// @notice {charge} after an EIP-2612 permit(payer, this contract, permitValue, permitDeadline, v, r, s) on
    ///         the token: the first charge of a subscriber who gave a permit instead of an approval. A permit that
    ///         fails (e.g. someone submitted it first) is ignored; the charge then relies on the allowance.
    function chargeWithPermit(
        SpendPermission calldata p,
        bytes calldata payerSignature,
        bytes32 orderId,
        uint256 amount,
        uint256 permitValue,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @notice Revoke a permission for good (only its payer; works whatever the service does).
    function revoke(SpendPermission calldata p) external;

    /// @notice Revoke a permission for good by its hash (the router's operator: a cancel on the service's side).
    function revokeAsOperator(bytes32 permissionHash) external;

    /// @notice EIP-712 digest the payer signs for `p` on this chain and manager.
    function hashPermission(SpendPermission calldata p) external view returns (bytes32);
    /// @notice The split of a charge of `amount` under `p`: the service computes the same numbers.
    function split(SpendPermission calldata p, uint256 amount)
        external
        pure
        returns (uint256 serviceFee, uint256 platformFee, uint256 reserveHold);
    /// @notice Whether period `periodIndex` of the permission with hash `permissionHash` was charged.
    function charged(bytes32 permissionHash, uint256 periodIndex) external view returns (bool);
    function revoked(bytes32 permissionHash) external view returns (bool);
    /// @notice The router whose module this contract is.
    function router() external view returns (IPaymentRouter);
    /// @notice The router's current operator, the only account that may charge.
    function operator() external view returns (address);
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
