// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {RouterCore} from "./RouterCore.sol";
import {TransferAuthorization} from "./TransferAuthorization.sol";
import {ArrivalVerifier} from "./arrival/ArrivalVerifier.sol";

/// @title RouterX402
/// @notice Payment by an unmodified x402 `exact` client: the buyer signs USDC's ERC-3009
///         TransferWithAuthorization(from, to = router, value, validAfter, validBefore, random nonce), which names
///         the router and the amount but not the order. The router pulls it and splits it like {payOrder}; if a
///         third party submitted it straight to the token first, the operator attributes the funds that landed
///         in the router to the order, or returns them to a second payer of an order already paid.
/// @dev The order is bound to the authorization by the payer lock (order.payer == from, signed by the service),
///      the amount and the deadline; each (from, nonce) counts once (x402Consumed). Attribution and return spend
///      only what that (token, from, nonce) provably moved into the router (arrived, proven from a block
///      header, its receipt trie and the token's logs by ArrivalVerifier): never other payers' funds, and never
///      for a cancelled authorization, which moves nothing. They also check the unattributed balance, balanceOf
///      - reserved - held, so the invariant balanceOf(router) >= reserved + held holds by construction.
abstract contract RouterX402 is RouterCore {
    using SafeERC20 for IERC20;

    /// @inheritdoc IPaymentRouter
    mapping(address from => mapping(bytes32 nonce => bool)) public x402Consumed;
    /// @inheritdoc IPaymentRouter
    mapping(address token => mapping(address from => mapping(bytes32 nonce => uint256))) public arrived;
    /// @inheritdoc IPaymentRouter
    address public immutable arrivalVerifier;

    /// @dev The router deploys its own verifier: the constructor signature stays, and no key can swap it.
    constructor() {
        arrivalVerifier = address(new ArrivalVerifier());
    }

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
        bytes32 digest = _checkX402(order, signature, from, nonce);
        // Subtraction, not deadline + 1, so an absurd deadline cannot overflow past the check.
        if (validBefore > order.deadline && validBefore - order.deadline > 1) {
            revert AuthorizationOutlivesOrder(validBefore, order.deadline);
        }
        uint256 releaseAfter = _record(order, digest, from);
        TransferAuthorization.transferExact(
            order.token, from, order.amount, validAfter, validBefore, nonce, authorization
        );
        _complete(order, from, releaseAfter);
        emit X402Settled(order.orderId, from, nonce);
    }

    /// @inheritdoc IPaymentRouter
    function proveArrival(address token, address from, bytes32 nonce, ArrivalProof calldata proof)
        external
        returns (uint256)
    {
        return _arrival(token, from, nonce, proof);
    }

    /// @inheritdoc IPaymentRouter
    function attributeTransfer(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        bytes32 nonce,
        ArrivalProof calldata proof
    ) external onlyOperator nonReentrant whenNotPaused {
        bytes32 digest = _checkX402(order, signature, from, nonce);
        uint256 value = _arrival(order.token, from, nonce, proof);
        if (value != order.amount) revert ArrivalValueMismatch(value, order.amount);
        _requireUnattributed(order.token, value);
        uint256 releaseAfter = _record(order, digest, from);
        _complete(order, from, releaseAfter);
        emit X402Attributed(order.orderId, from, nonce);
    }

    /// @inheritdoc IPaymentRouter
    function returnTransfer(address token, address from, bytes32 nonce, ArrivalProof calldata proof)
        external
        nonReentrant
    {
        if (msg.sender != operator && msg.sender != from) revert NotPayerOrOperator(msg.sender);
        _consume(from, nonce);
        uint256 value = _arrival(token, from, nonce, proof);
        _requireUnattributed(token, value);
        IERC20(token).safeTransfer(from, value);
        emit X402Returned(token, from, nonce, value);
    }

    /// @dev Every {payOrder} check for payer `from`, and the x402 ones: a non-zero payer lock (the signed order is
    ///      what ties an authorization that names no order to this order) and a (from, nonce) not counted before,
    ///      which is then marked consumed.
    function _checkX402(PayOrder calldata order, bytes calldata signature, address from, bytes32 nonce)
        private
        returns (bytes32 digest)
    {
        if (order.payer == address(0)) revert PayerLockRequired(order.orderId);
        digest = hashPayOrder(order);
        _checkOrder(order, digest, signature, from);
        _consume(from, nonce);
    }

    /// @dev The recorded arrival of (token, from, nonce), proving it from `proof` first when none is recorded.
    ///      The verifier is a view (staticcall): nothing can re-enter here.
    function _arrival(address token, address from, bytes32 nonce, ArrivalProof calldata proof)
        private
        returns (uint256 value)
    {
        value = arrived[token][from][nonce];
        if (value != 0) return value;
        if (proof.header.length == 0) revert ArrivalNotProven(from, nonce);
        value = ArrivalVerifier(arrivalVerifier).verify(token, from, nonce, address(this), proof);
        arrived[token][from][nonce] = value;
        emit ArrivalProven(token, from, nonce, value);
    }

    function _consume(address from, bytes32 nonce) internal {
        if (x402Consumed[from][nonce]) revert X402NonceConsumed(from, nonce);
        x402Consumed[from][nonce] = true;
    }

    /// @dev Reverts unless the router holds at least `needed` of `token` beyond what it owes.
    function _requireUnattributed(address token, uint256 needed) private view {
        uint256 available = IERC20(token).balanceOf(address(this)) - reserved[token] - held[token];
        if (available < needed) revert InsufficientUnattributed(available, needed);
    }
}
