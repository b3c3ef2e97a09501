// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {TestBase} from "../utils/TestBase.sol";

/// @notice Drives the router through random sequences of payments, repeat payments, refunds (reserve-only
///         and funded, sometimes too large), settlements and time jumps, keeping ghost totals to compare.
contract RouterHandler is TestBase {
    uint256 internal constant SIGNER_KEY = 0xA11CE;
    uint256 internal constant ACTORS = 4;

    PaymentRouter public immutable router;
    TestUSDC public immutable usdc;
    address public immutable operator;
    address public immutable funder;

    bytes32[] public orderIds;
    mapping(bytes32 => IPaymentRouter.PayOrder) internal signedOrders;
    uint256 public ghostReserve; // Σ reserveHold paid in − Σ taken by refunds − Σ released
    uint256 public ghostDoublePays; // successful second payments of one orderId: must stay 0
    uint256 public ghostOverRefunds; // successful refunds beyond the order amount: must stay 0
    uint256 public ghostPayments;
    uint256 public ghostRefunds;
    uint256 public ghostBatches;
    uint256 private _nonce;

    constructor(PaymentRouter router_, TestUSDC usdc_, address operator_) {
        router = router_;
        usdc = usdc_;
        operator = operator_;
        funder = makeAddr("funder");
        for (uint256 i; i < ACTORS; ++i) {
            vm.prank(actor(i));
            usdc.approve(address(router), type(uint256).max);
        }
        vm.prank(funder);
        usdc.approve(address(router), type(uint256).max);
    }

    function orderCount() external view returns (uint256) {
        return orderIds.length;
    }

    function pay(uint256 amount, uint256 serviceBps, uint256 platformBps, uint256 reserveBps, uint256 actorSeed)
        external
    {
        amount = bound(amount, 1, 1e12);
        serviceBps = bound(serviceBps, 0, 1_000);
        platformBps = bound(platformBps, 0, 10_000 - serviceBps);
        reserveBps = bound(reserveBps, 0, 10_000);
        uint256 serviceFee = amount * serviceBps / 10_000;
        uint256 platformFee = amount * platformBps / 10_000;
        IPaymentRouter.PayOrder memory o = IPaymentRouter.PayOrder({
            orderId: keccak256(abi.encodePacked("ord_inv_", ++_nonce)),
            token: address(usdc),
            amount: amount,
            payer: address(0),
            merchant: actor(actorSeed % ACTORS + 1),
            platform: actor(actorSeed % ACTORS + 2),
            serviceFee: serviceFee,
            platformFee: platformFee,
            reserveHold: (amount - serviceFee - platformFee) * reserveBps / 10_000,
            deadline: block.timestamp + 1 days
        });
        vm.prank(actor(actorSeed));
        router.payOrder(o, SigUtils.signPay(SIGNER_KEY, o, address(router)));
        orderIds.push(o.orderId);
        signedOrders[o.orderId] = o;
        ghostReserve += o.reserveHold;
        ++ghostPayments;
    }

    function payAgain(uint256 index, uint256 actorSeed) external {
        if (orderIds.length == 0) return;
        IPaymentRouter.PayOrder memory o = signedOrders[orderIds[index % orderIds.length]];
        o.deadline = block.timestamp + 1 days; // a fresh, valid signature for the same orderId
        bytes memory sig = SigUtils.signPay(SIGNER_KEY, o, address(router));
        vm.prank(actor(actorSeed));
        try router.payOrder(o, sig) {
            ++ghostDoublePays;
        } catch {}
    }

    function refund(uint256 index, uint256 amount, bool byFunder) external {
        if (orderIds.length == 0) return;
        bytes32 id = orderIds[index % orderIds.length];
        IPaymentRouter.Order memory before = router.orders(id);
        // Mostly valid amounts, sometimes one unit too many, to exercise the cap.
        amount = bound(amount, 1, before.amount - before.refunded + 1);
        IPaymentRouter.RefundOrder memory r = IPaymentRouter.RefundOrder({
            orderId: id,
            refundId: keccak256(abi.encodePacked("re_inv_", ++_nonce)),
            to: actor(index),
            amount: amount,
            deadline: block.timestamp + 1 days
        });
        bytes memory sig = SigUtils.signRefund(SIGNER_KEY, r, address(router));
        vm.prank(byFunder ? funder : operator);
        try router.refund(r, sig) {
            if (before.refunded + amount > before.amount) ++ghostOverRefunds;
            ghostReserve -= amount < before.reserve ? amount : before.reserve;
            ++ghostRefunds;
        } catch {}
    }

    function settle(uint256 start, uint256 count) external {
        if (orderIds.length == 0) return;
        count = bound(count, 1, 10);
        bytes32[] memory ids = new bytes32[](count);
        start %= orderIds.length;
        for (uint256 i; i < count; ++i) {
            ids[i] = orderIds[(start + i) % orderIds.length]; // duplicates in a batch are fine
        }
        uint256 routerBefore = usdc.balanceOf(address(router));
        vm.prank(operator);
        router.settleBatch(keccak256(abi.encodePacked("stl_inv_", ++_nonce)), ids);
        ghostReserve -= routerBefore - usdc.balanceOf(address(router));
        ++ghostBatches;
    }

    function warp(uint256 secondsAhead) external {
        vm.warp(block.timestamp + bound(secondsAhead, 1, 3 days));
    }

    function actor(uint256 seed) public pure returns (address) {
        return address(uint160(0x1000 + (seed % ACTORS)));
    }
}
