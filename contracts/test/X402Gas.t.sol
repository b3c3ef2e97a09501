// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";

/// @notice One scenario per x402 entry point, each calling the router only with the call it measures, for
///         `forge test --isolate --gas-report --match-path test/X402Gas.t.sol --match-test <name>` (docs/contracts.md):
///         the first call pays recipients holding no USDC yet (max), the second recipients that do (min).
contract X402GasTest is X402TestBase {
    function test_gas_payOrderWithTransfer() public {
        for (uint256 i; i < 2; ++i) {
            IPaymentRouter.PayOrder memory o = x402Order(100e6, payer);
            AuthUtils.Authorization memory a = x402Auth(payer, o);
            payX402(o, a, signX402(PAYER_KEY, a));
            vm.assertTrue(router.orders(o.orderId).paid, "paid");
        }
    }

    function test_gas_payOrderWithTransfer_authorization() public {
        for (uint256 i; i < 2; ++i) {
            IPaymentRouter.PayOrder memory o = x402Order(100e6, payer);
            o.captureDeadline = block.timestamp + 7 days;
            AuthUtils.Authorization memory a = x402Auth(payer, o);
            payX402(o, a, signX402(PAYER_KEY, a));
        }
        vm.assertEq(router.held(address(fiat)), 200e6, "held");
    }

    function test_gas_attributeTransfer() public {
        for (uint256 i; i < 2; ++i) {
            IPaymentRouter.PayOrder memory o = x402Order(100e6, payer);
            AuthUtils.Authorization memory a = x402Auth(payer, o);
            bytes memory authSig = signX402(PAYER_KEY, a);
            frontRun(a, authSig);
            attribute(o, a);
        }
        vm.assertEq(unattributed(), 0, "attributed");
    }

    /// Only returnTransfer is measured here (the paid order goes through payOrderWithTransfer).
    function test_gas_returnTransfer() public {
        IPaymentRouter.PayOrder memory o = x402Order(100e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        payX402(o, a, signX402(PAYER_KEY, a));
        for (uint256 i; i < 2; ++i) {
            AuthUtils.Authorization memory b = x402Auth(payer, o);
            bytes memory bSig = signX402(PAYER_KEY, b);
            frontRun(b, bSig);
            returnX402(b);
        }
        vm.assertEq(unattributed(), 0, "returned");
    }

    /// For comparison: the gasless path (receiveWithAuthorization, nonce = order digest) on the same token.
    function test_gas_payOrderWithAuthorization() public {
        for (uint256 i; i < 2; ++i) {
            IPaymentRouter.PayOrder memory o = fiatOrder(100e6);
            AuthUtils.Authorization memory a = authFor(payer, o);
            relay(o, a, signAuth(PAYER_KEY, a));
        }
    }
}
