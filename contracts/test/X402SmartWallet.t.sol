// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC4337Factory} from "solady/accounts/ERC4337Factory.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SoladyAccount} from "./mocks/SoladyAccount.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";
import {X402Utils} from "./utils/X402Utils.sol";

/// @notice An ERC-1271 smart wallet (solady's ERC-4337 account, ERC-7739 nested typed data) pays over x402: USDC
///         checks its signature when the router relays it, and the router checks it itself on attribution.
contract X402SmartWalletTest is X402TestBase {
    uint256 internal constant OWNER_KEY = 0x5AFE;
    address internal account;

    function setUp() public override {
        super.setUp();
        ERC4337Factory factory = new ERC4337Factory(address(new SoladyAccount()));
        account = factory.createAccount(bytes32(uint256(uint160(vm.addr(OWNER_KEY))) << 96));
        mintTo(account, 1_000e6);
        vm.txGasPrice(1 gwei);
    }

    function test_smartWallet_paysOverX402() public {
        IPaymentRouter.PayOrder memory o = x402Order(77_777_777, account);
        AuthUtils.Authorization memory a = x402Auth(account, o);
        payX402(o, a, X402Utils.signNested(OWNER_KEY, account, fiat, a));
        vm.assertEq(fbal(account), 1_000e6 - o.amount, "account debited");
        vm.assertEq(fbal(address(router)), o.reserveHold, "reserve kept");
        vm.assertEq(router.orders(o.orderId).payer, account, "account recorded as payer");
    }

    function test_smartWallet_frontRun_attributedAfterERC1271() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, account);
        AuthUtils.Authorization memory a = x402Auth(account, o);
        bytes memory authSig = X402Utils.signNested(OWNER_KEY, account, fiat, a);
        // Someone else's key in the nested format, and the owner's plain ECDSA: the account refuses both, so
        // the token moves nothing and there is no arrival to attribute.
        bytes memory wrong = X402Utils.signNested(OTHER_KEY, account, fiat, a);
        bytes memory plain = signX402(OWNER_KEY, a);
        vm.expectRevert(errString("FiatTokenV2: invalid signature"));
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, wrong);
        vm.expectRevert(errString("FiatTokenV2: invalid signature"));
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, plain);
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, account, a.nonce), o, a);
        frontRun(a, authSig);
        attribute(o, a);
        vm.assertEq(unattributed(), 0, "attributed");
        vm.assertEq(fbal(merchant), o.amount - o.serviceFee - o.platformFee - o.reserveHold, "merchant paid");
    }

    function test_smartWallet_secondPayment_returned() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, account);
        AuthUtils.Authorization memory a = x402Auth(account, o);
        payX402(o, a, X402Utils.signNested(OWNER_KEY, account, fiat, a));
        AuthUtils.Authorization memory b = x402Auth(account, o);
        bytes memory bSig = X402Utils.signNested(OWNER_KEY, account, fiat, b);
        frontRun(b, bSig);
        returnX402(b);
        vm.assertEq(fbal(account), 1_000e6 - o.amount, "charged once");
    }
}
