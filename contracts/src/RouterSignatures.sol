// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";

/// @title RouterSignatures
/// @notice The router's service signers and the EIP-712 hashing of what they sign (PayOrder, RefundOrder) over
///         the domain {name: "Trisettle PaymentRouter", version: "1", chainId, verifyingContract}.
abstract contract RouterSignatures is IPaymentRouter, EIP712 {
    bytes32 public constant PAY_ORDER_TYPEHASH = keccak256(
        "PayOrder(bytes32 orderId,address token,uint256 amount,address payer,address merchant,address platform,"
        "uint256 serviceFee,uint256 platformFee,uint256 reserveHold,uint256 deadline,uint256 captureDeadline)"
    );
    bytes32 public constant REFUND_ORDER_TYPEHASH =
        keccak256("RefundOrder(bytes32 orderId,bytes32 refundId,address to,uint256 amount,uint256 deadline)");

    /// @inheritdoc IPaymentRouter
    mapping(address account => bool) public isSigner;

    constructor() EIP712("Trisettle PaymentRouter", "1") {}

    /// @inheritdoc IPaymentRouter
    function hashPayOrder(PayOrder calldata order) public view returns (bytes32) {
        // PayOrder has only static fields, so abi.encode(struct) == encoding each field in order.
        return _hashTypedDataV4(keccak256(abi.encode(PAY_ORDER_TYPEHASH, order)));
    }

    /// @inheritdoc IPaymentRouter
    function hashRefundOrder(RefundOrder calldata ro) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(REFUND_ORDER_TYPEHASH, ro)));
    }

    /// @inheritdoc IPaymentRouter
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function _requireSigner(bytes32 digest, bytes calldata signature) internal view {
        // tryRecover accepts only 65-byte, low-s signatures; anything else recovers to address(0).
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err != ECDSA.RecoverError.NoError || !isSigner[recovered]) revert InvalidSigner(recovered);
    }

    function _setSigner(address signer, bool authorised) internal {
        if (signer == address(0)) revert ZeroAddress();
        isSigner[signer] = authorised;
        emit SignerUpdated(signer, authorised);
    }
}
