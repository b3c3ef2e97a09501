// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";
import {RouterCore} from "./RouterCore.sol";

/// @title RouterModules
/// @notice The module hook: contracts the owner registers (the SubscriptionManager) pay orders they authorise
///         themselves, without a service signer's signature, recorded and split exactly as {payOrder}.
/// @dev A module is trusted with the order's terms (parties, split, payer), as a signer is; it can only spend
///      money it holds itself, since the router pulls the amount from the module (balance-delta checked).
abstract contract RouterModules is RouterCore {
    /// @inheritdoc IPaymentRouter
    mapping(address module => bool) public isModule;

    /// @inheritdoc IPaymentRouter
    function setModule(address module, bool enabled) external onlyOwner {
        if (module == address(0)) revert ZeroAddress();
        isModule[module] = enabled;
        emit ModuleUpdated(module, enabled);
    }

    /// @inheritdoc IPaymentRouter
    function payFromModule(PayOrder calldata order, address payer) external nonReentrant whenNotPaused {
        if (!isModule[msg.sender]) revert NotModule(msg.sender);
        // A module pays at once: an authorization's capture would need a signed digest the module has not got.
        if (order.captureDeadline != 0) revert CaptureDeadlineInvalid(order.captureDeadline, block.timestamp);
        _checkTerms(order, payer);
        // The digest is kept only for an authorization, which a module cannot make.
        uint256 releaseAfter = _record(order, bytes32(0), payer);
        _pullExact(IERC20(order.token), order.amount);
        _complete(order, payer, releaseAfter);
    }
}
