// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {ISubscriptionManager} from "./ISubscriptionManager.sol";

/// @title Trisettle SubscriptionManager
/// @notice Charges payer-signed spend permissions, one charge of at most `amount` per period, through the
///         router's module hook. A stolen operator or signer key can at most take what the payer authorized,
///         when due, to the split the payer signed; the payer can revoke without the service.
/// @dev Holds no tokens between transactions: each charge pulls exactly `amount` from the payer and the router
///      pulls it on at once. Only the router's operator can start a charge, and the period is marked charged
///      before any token call, so a re-entrant charge of the same period fails.
contract SubscriptionManager is ISubscriptionManager, EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant SPEND_PERMISSION_TYPEHASH = keccak256(
        "SpendPermission(address payer,address token,address merchant,address platform,uint160 amount,"
        "uint32 period,uint48 start,uint48 end,uint16 serviceFeeBps,uint16 platformFeeBps,uint16 reserveBps,"
        "uint256 salt)"
    );
    uint256 private constant BPS = 10_000;

    /// @inheritdoc ISubscriptionManager
    IPaymentRouter public immutable router;
    /// @inheritdoc ISubscriptionManager
    mapping(bytes32 permissionHash => bool) public revoked;
    /// @inheritdoc ISubscriptionManager
    mapping(bytes32 permissionHash => mapping(uint256 periodIndex => bool)) public charged;

    modifier onlyOperator() {
        if (msg.sender != router.operator()) revert NotOperator(msg.sender);
        _;
    }

    constructor(IPaymentRouter router_) EIP712("Trisettle Subscriptions", "1") {
        if (address(router_) == address(0)) revert ZeroAddress();
        router = router_;
    }

    /// @inheritdoc ISubscriptionManager
    function charge(SpendPermission calldata p, bytes calldata payerSignature, bytes32 orderId, uint256 amount)
        external
        onlyOperator
    {
        _charge(p, payerSignature, orderId, amount);
    }

    /// @inheritdoc ISubscriptionManager
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
    ) external onlyOperator {
        // A permit copied from the mempool and submitted first must not fail the charge: the allowance it left
        // decides.
        try IERC20Permit(p.token).permit(p.payer, address(this), permitValue, permitDeadline, v, r, s) {} catch {}
        _charge(p, payerSignature, orderId, amount);
    }

    /// @inheritdoc ISubscriptionManager
    function revoke(SpendPermission calldata p) external {
        if (msg.sender != p.payer) revert NotPayer(msg.sender, p.payer);
        _revoke(hashPermission(p), p.payer);
    }

    /// @inheritdoc ISubscriptionManager
    function revokeAsOperator(bytes32 permissionHash) external onlyOperator {
        _revoke(permissionHash, address(0));
    }

    /// @inheritdoc ISubscriptionManager
    function hashPermission(SpendPermission calldata p) public view returns (bytes32) {
        // Only static fields: abi.encode(struct) == each field padded to 32 bytes in order, as EIP-712 wants.
        return _hashTypedDataV4(keccak256(abi.encode(SPEND_PERMISSION_TYPEHASH, p)));
    }

    /// @inheritdoc ISubscriptionManager
    function split(SpendPermission calldata p, uint256 amount)
        public
        pure
        returns (uint256 serviceFee, uint256 platformFee, uint256 reserveHold)
    {
        serviceFee = amount * p.serviceFeeBps / BPS;
        platformFee = amount * p.platformFeeBps / BPS;
        reserveHold = (amount - serviceFee - platformFee) * p.reserveBps / BPS;
    }

    /// @inheritdoc ISubscriptionManager
    function operator() external view returns (address) {
        return router.operator();
    }

    /// @inheritdoc ISubscriptionManager
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function _charge(SpendPermission calldata p, bytes calldata payerSignature, bytes32 orderId, uint256 amount)
        private
    {
        bytes32 hash = hashPermission(p);
        uint256 periodIndex = _checkCharge(p, hash, amount);
        if (!SignatureChecker.isValidSignatureNowCalldata(p.payer, hash, payerSignature)) {
            revert InvalidPayerSignature(p.payer);
        }
        charged[hash][periodIndex] = true;

        IERC20 token = IERC20(p.token);
        token.safeTransferFrom(p.payer, address(this), amount);
        token.forceApprove(address(router), amount);
        router.payFromModule(_order(p, orderId, amount), p.payer);
        emit Charged(hash, orderId, periodIndex, amount);
    }

    /// @dev The permission's checks apart from the signature; returns the current period's index.
    function _checkCharge(SpendPermission calldata p, bytes32 hash, uint256 amount)
        private
        view
        returns (uint256 periodIndex)
    {
        if (p.period == 0 || uint256(p.serviceFeeBps) + p.platformFeeBps > BPS || p.reserveBps > BPS) {
            revert InvalidPermission(hash);
        }
        if (revoked[hash]) revert Revoked(hash);
        if (block.timestamp < p.start || block.timestamp >= p.end) {
            revert OutsideWindow(p.start, p.end, block.timestamp);
        }
        periodIndex = (block.timestamp - p.start) / p.period;
        if (charged[hash][periodIndex]) revert PeriodAlreadyCharged(hash, periodIndex);
        if (amount == 0 || amount > p.amount) revert InvalidChargeAmount(amount, p.amount);
    }

    function _order(SpendPermission calldata p, bytes32 orderId, uint256 amount)
        private
        view
        returns (IPaymentRouter.PayOrder memory order)
    {
        (uint256 serviceFee, uint256 platformFee, uint256 reserveHold) = split(p, amount);
        order = IPaymentRouter.PayOrder({
            orderId: orderId,
            token: p.token,
            amount: amount,
            payer: p.payer,
            merchant: p.merchant,
            platform: p.platform,
            serviceFee: serviceFee,
            platformFee: platformFee,
            reserveHold: reserveHold,
            deadline: block.timestamp,
            captureDeadline: 0
        });
    }

    function _revoke(bytes32 hash, address payer) private {
        revoked[hash] = true;
        emit PermissionRevoked(hash, payer, msg.sender);
    }
}
