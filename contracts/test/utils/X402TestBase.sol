// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {ArrivalProofs} from "./ArrivalProofs.sol";
import {AuthUtils} from "./AuthUtils.sol";
import {GaslessTestBase} from "./GaslessTestBase.sol";
import {Vm} from "./Vm.sol";
import {X402Utils} from "./X402Utils.sol";

/// @notice GaslessTestBase plus x402 helpers: orders locked to their payer, authorizations as the stock `exact`
///         client signs them (random nonce, a short window), relayed through the router, front-run straight to
///         USDC by a third party (its arrival proof built from the token's real logs), attributed or returned.
abstract contract X402TestBase is GaslessTestBase {
    /// @dev The x402 client's window: valid from 10 minutes ago, for maxTimeoutSeconds (here 5 minutes).
    uint256 internal constant MAX_TIMEOUT = 5 minutes;
    address internal frontRunner;
    uint256 private _x402Nonce;
    mapping(bytes32 fromNonce => bytes) private _proofs; // abi-encoded ArrivalProof of each front-run

    function setUp() public virtual override {
        super.setUp();
        frontRunner = makeAddr("front-runner");
    }

    /// @dev 1% service, 5% platform, 10% reserve, locked to `from` (the payer the service verified).
    function x402Order(uint256 amount, address from) internal returns (IPaymentRouter.PayOrder memory o) {
        o = fiatOrder(amount);
        o.payer = from;
    }

    function x402Auth(address from, IPaymentRouter.PayOrder memory o)
        internal
        returns (AuthUtils.Authorization memory)
    {
        return AuthUtils.Authorization({
            from: from,
            to: address(router),
            value: o.amount,
            validAfter: block.timestamp - 10 minutes,
            validBefore: block.timestamp + MAX_TIMEOUT,
            nonce: keccak256(abi.encodePacked("x402 random nonce", ++_x402Nonce))
        });
    }

    function signX402(uint256 key, AuthUtils.Authorization memory a) internal view returns (bytes memory) {
        return X402Utils.sign(key, fiat, a);
    }

    function payX402(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, bytes memory authSig)
        internal
    {
        bytes memory sig = sign(o);
        vm.prank(relayer);
        router.payOrderWithTransfer(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    function expectPayX402Revert(
        bytes memory reason,
        IPaymentRouter.PayOrder memory o,
        AuthUtils.Authorization memory a,
        bytes memory authSig
    ) internal {
        bytes memory sig = sign(o);
        vm.prank(relayer);
        vm.expectRevert(reason);
        router.payOrderWithTransfer(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    /// @dev A third party submits the buyer's authorization straight to USDC: the funds land in the router. The
    ///      token's real logs are recorded into a receipt (index 1 of a 3-transaction block at the current
    ///      height), one block is mined and the chain vouches for the header: proofOf(a) then proves it.
    function frontRun(AuthUtils.Authorization memory a, bytes memory authSig) internal {
        vm.recordLogs();
        vm.prank(frontRunner);
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        _proofs[keccak256(abi.encode(a.from, a.nonce))] = abi.encode(mine(vm.getRecordedLogs(), 1, 3));
    }

    /// @dev ArrivalProofs.mine: the block at the current height holds a receipt with `logs` at `txIndex`.
    function mine(Vm.Log[] memory logs, uint256 txIndex, uint256 count)
        internal
        returns (IPaymentRouter.ArrivalProof memory)
    {
        return ArrivalProofs.mine(vm, logs, txIndex, count);
    }

    /// @dev The proof recorded when `a` was front-run; an empty one if it never was.
    function proofOf(AuthUtils.Authorization memory a) internal view returns (IPaymentRouter.ArrivalProof memory p) {
        bytes memory encoded = _proofs[keccak256(abi.encode(a.from, a.nonce))];
        if (encoded.length != 0) p = abi.decode(encoded, (IPaymentRouter.ArrivalProof));
    }

    function attribute(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a) internal {
        bytes memory sig = sign(o);
        vm.prank(operator);
        router.attributeTransfer(o, sig, a.from, a.nonce, proofOf(a));
    }

    function expectAttributeRevert(
        bytes memory reason,
        IPaymentRouter.PayOrder memory o,
        AuthUtils.Authorization memory a,
        IPaymentRouter.ArrivalProof memory proof
    ) internal {
        bytes memory sig = sign(o);
        vm.prank(operator);
        vm.expectRevert(reason);
        router.attributeTransfer(o, sig, a.from, a.nonce, proof);
    }

    function expectAttributeRevert(
        bytes memory reason,
        IPaymentRouter.PayOrder memory o,
        AuthUtils.Authorization memory a
    ) internal {
        expectAttributeRevert(reason, o, a, proofOf(a));
    }

    function returnX402(AuthUtils.Authorization memory a) internal {
        vm.prank(operator);
        router.returnTransfer(address(fiat), a.from, a.nonce, proofOf(a));
    }

    function expectReturnRevert(
        bytes memory reason,
        AuthUtils.Authorization memory a,
        IPaymentRouter.ArrivalProof memory proof
    ) internal {
        vm.prank(operator);
        vm.expectRevert(reason);
        router.returnTransfer(address(fiat), a.from, a.nonce, proof);
    }

    function expectReturnRevert(bytes memory reason, AuthUtils.Authorization memory a) internal {
        expectReturnRevert(reason, a, proofOf(a));
    }

    /// @dev A copy (memory structs assign by reference).
    function copy(AuthUtils.Authorization memory a) internal pure returns (AuthUtils.Authorization memory) {
        return AuthUtils.Authorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce);
    }

    /// @dev What the router holds of USDC beyond reserved + held.
    function unattributed() internal view returns (uint256) {
        return fbal(address(router)) - router.reserved(address(fiat)) - router.held(address(fiat));
    }

    function err(bytes4 selector, bytes32 orderId) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(selector, orderId);
    }

    function errString(string memory reason) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("Error(string)", reason);
    }
}
