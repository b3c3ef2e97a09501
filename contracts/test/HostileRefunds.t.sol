// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {PaymentRouter} from "../src/PaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice The signature attacks of Signatures.t.sol, aimed at refunds instead of payments (those cover
///         payOrder only): a RefundOrder signed for another chain or router, its malleable high-s twin, an
///         EIP-2098 64-byte form. Each is refused and no token moves: the reserve stays in the router.
contract HostileRefundsTest is RouterTestBase {
    IPaymentRouter.PayOrder internal paid;

    function setUp() public override {
        super.setUp();
        paid = defaultOrder();
        pay(paid);
    }

    function _expectRefused(IPaymentRouter.RefundOrder memory r, bytes memory sig) internal {
        uint256 routerBefore = bal(address(router));
        uint256 buyerBefore = bal(buyer);
        vm.prank(operator);
        (bool ok,) = address(router).call(abi.encodeCall(IPaymentRouter.refund, (r, sig)));
        vm.assertFalse(ok, "refund accepted");
        vm.assertEq(bal(address(router)), routerBefore, "router balance moved");
        vm.assertEq(bal(buyer), buyerBefore, "buyer balance moved");
        vm.assertFalse(router.refundUsed(r.refundId), "refund id spent");
        vm.assertEq(router.orders(paid.orderId).refunded, 0, "order marked refunded");
    }

    function test_RevertWhen_RefundSignedForAnotherChain() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(SIGNER_KEY, SigUtils.refundDigest(r, 8453, address(router)));
        _expectRefused(r, abi.encodePacked(rr, s, v));
    }

    function test_RevertWhen_RefundSignedForAnotherRouter() public {
        PaymentRouter other = new PaymentRouter(owner, signer, operator, treasury, 7 days);
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(SIGNER_KEY, SigUtils.refundDigest(r, block.chainid, address(other)));
        _expectRefused(r, abi.encodePacked(rr, s, v));
    }

    function test_RevertWhen_RefundHighS() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(SIGNER_KEY, router.hashRefundOrder(r));
        bytes32 highS = bytes32(SigUtils.SECP256K1_N - uint256(s));
        _expectRefused(r, abi.encodePacked(rr, highS, v == 27 ? uint8(28) : uint8(27)));
    }

    function test_RevertWhen_RefundCompactSignature() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(SIGNER_KEY, router.hashRefundOrder(r));
        _expectRefused(r, abi.encodePacked(rr, bytes32(uint256(s) | (uint256(v - 27) << 255))));
    }

    function test_RevertWhen_RefundToAnotherAddressThanSigned() public {
        IPaymentRouter.RefundOrder memory r = refundOrder(paid.orderId, 1e6);
        bytes memory sig = sign(r);
        r.to = makeAddr("attacker");
        _expectRefused(r, sig);
    }
}
