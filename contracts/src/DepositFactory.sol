// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {LibClone} from "solady/utils/LibClone.sol";
import {DepositForwarder} from "./DepositForwarder.sol";
import {DepositTerms, IDepositForwarder} from "./IDepositForwarder.sol";

/// @title Trisettle DepositFactory
/// @notice Hands out and deploys the per-order deposit addresses (see {DepositForwarder}). Deploys its own
///         forwarder implementation in the constructor, so deploying the factory is the only step.
///         Address = CREATE2(this factory, salt = orderId, LibClone init code of (implementation,
///         args = abi.encode(router, terms, refundTo))): it commits to the router, every term and refundTo, so
///         different terms for one orderId give different addresses. Anyone may deploy and sweep.
/// @dev Terms are checked as the router would (plus refundTo) before an address is predicted or deployed, so a
///      deposit address whose order the router would always refuse is never handed out. The deadline is not
///      checked: a clone must stay deployable after it, to return late funds.
contract DepositFactory {
    address public immutable router;
    address public immutable implementation;

    event DepositDeployed(bytes32 indexed orderId, address indexed deposit, address refundTo);

    error ZeroAddress();
    error ZeroAmount();
    error FeesExceedAmount(uint256 amount, uint256 serviceFee, uint256 platformFee, uint256 reserveHold);
    /// @notice refundTo is the deposit address itself, the router, this factory or the implementation.
    error BadRefundTo(address refundTo);

    constructor(address router_) {
        if (router_ == address(0)) revert ZeroAddress();
        router = router_;
        implementation = address(new DepositForwarder());
    }

    /// @notice The deposit address of `terms` with `refundTo` (deployed or not). Reverts for terms the router or
    ///         this factory would refuse.
    function predict(DepositTerms calldata terms, address refundTo) public view returns (address deposit) {
        bytes memory args = abi.encode(router, terms, refundTo);
        deposit = LibClone.predictDeterministicAddress(implementation, args, terms.orderId, address(this));
        _check(terms, refundTo, deposit);
    }

    /// @notice Deploys the deposit address of `terms` (idempotent: returns it if it already exists).
    function deploy(DepositTerms calldata terms, address refundTo) public returns (address deposit) {
        bytes memory args = abi.encode(router, terms, refundTo);
        _check(
            terms, refundTo, LibClone.predictDeterministicAddress(implementation, args, terms.orderId, address(this))
        );
        bool existed;
        (existed, deposit) = LibClone.createDeterministicClone(implementation, args, terms.orderId);
        if (!existed) emit DepositDeployed(terms.orderId, deposit, refundTo);
    }

    /// @notice {deploy} then {IDepositForwarder.sweep} in one transaction (for the service's relayer).
    function deployAndSweep(DepositTerms calldata terms, address refundTo, bytes calldata signature)
        external
        returns (address deposit, uint256 paid, uint256 returned)
    {
        deposit = deploy(terms, refundTo);
        (paid, returned) = IDepositForwarder(deposit).sweep(signature);
    }

    function _check(DepositTerms calldata t, address refundTo, address deposit) private view {
        if (refundTo == address(0) || t.token == address(0) || t.merchant == address(0) || t.platform == address(0)) {
            revert ZeroAddress();
        }
        if (refundTo == deposit || refundTo == router || refundTo == address(this) || refundTo == implementation) {
            revert BadRefundTo(refundTo);
        }
        if (t.amount == 0) revert ZeroAmount();
        // As the router: subtractions, so absurd fees cannot overflow past the check.
        if (
            t.serviceFee > t.amount || t.platformFee > t.amount - t.serviceFee
                || t.reserveHold > t.amount - t.serviceFee - t.platformFee
        ) revert FeesExceedAmount(t.amount, t.serviceFee, t.platformFee, t.reserveHold);
    }
}
