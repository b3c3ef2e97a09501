// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {MisbehavingAuthToken} from "./mocks/MisbehavingAuthToken.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

/// @notice The router's own guards on the gasless path, where a misbehaving token is the point.
contract GaslessTokensTest is RouterTestBase {
    MisbehavingAuthToken internal mat;
    address internal relayer;

    function setUp() public override {
        super.setUp();
        mat = new MisbehavingAuthToken();
        mat.mint(buyer, 1_000e6);
        relayer = makeAddr("relayer");
    }

    function relayCall(IPaymentRouter.PayOrder memory o) internal view returns (bytes memory) {
        return abi.encodeCall(
            IPaymentRouter.payOrderWithAuthorization,
            (o, sign(o), buyer, 0, o.deadline + 1, router.hashPayOrder(o), hex"")
        );
    }

    /// @dev The relayer submits `o` for the buyer; this token checks no authorization, so any bytes do.
    ///      A non-empty `expected` is the exact revert data the call must produce.
    function relay(IPaymentRouter.PayOrder memory o, bytes memory expected) internal {
        bytes memory sig = sign(o);
        bytes32 nonce = router.hashPayOrder(o);
        vm.prank(relayer);
        if (expected.length != 0) vm.expectRevert(expected);
        router.payOrderWithAuthorization(o, sig, buyer, 0, o.deadline + 1, nonce, hex"");
    }

    function test_RevertWhen_TokenDeliversLessThanAuthorized() public {
        IPaymentRouter.PayOrder memory o = splitOrder(address(mat), 100e6, 100, 500, 1000);
        mat.setShortfall(1);
        relay(o, abi.encodeWithSelector(IPaymentRouter.BalanceDeltaMismatch.selector, o.amount, o.amount - 1));
        vm.assertEq(mat.balanceOf(buyer), 1_000e6, "nothing moved");
        vm.assertFalse(router.orders(o.orderId).paid, "unpaid");
        vm.assertEq(router.reserved(address(mat)), 0, "nothing reserved");
        // Delivering in full, the same order pays.
        mat.setShortfall(0);
        relay(o, "");
        vm.assertTrue(router.orders(o.orderId).paid, "paid");
        vm.assertEq(mat.balanceOf(address(router)), o.reserveHold, "router holds the reserve");
    }

    function test_RevertWhen_ReentrantGaslessPay() public {
        IPaymentRouter.PayOrder memory o = splitOrder(address(mat), 100e6, 100, 500, 1000);
        IPaymentRouter.PayOrder memory other = splitOrder(address(mat), 50e6, 100, 500, 1000);
        mat.arm(address(router), relayCall(other));
        relay(o, abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector));
        vm.assertFalse(router.orders(o.orderId).paid, "unpaid");
        vm.assertFalse(router.orders(other.orderId).paid, "inner unpaid");
    }
}
