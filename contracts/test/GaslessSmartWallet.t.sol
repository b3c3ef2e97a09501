// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC4337Factory} from "solady/accounts/ERC4337Factory.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SoladyAccount} from "./mocks/SoladyAccount.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {GaslessTestBase} from "./utils/GaslessTestBase.sol";
import {SigUtils} from "./utils/SigUtils.sol";

/// @notice A smart wallet pays gaslessly: solady's ERC-4337 account (an ERC-1967 clone made by solady's
///         ERC4337Factory) holds the USDC, and Circle's FiatTokenV2_2 checks the authorization through the
///         account's ERC-1271 isValidSignature (solady's ERC-7739 nested typed-data scheme).
contract GaslessSmartWalletTest is GaslessTestBase {
    uint256 internal constant OWNER_KEY = 0x5AFE;
    address internal account;

    function setUp() public override {
        super.setUp();
        ERC4337Factory factory = new ERC4337Factory(address(new SoladyAccount()));
        address accountOwner = vm.addr(OWNER_KEY);
        bytes32 salt = bytes32(uint256(uint160(accountOwner)) << 96);
        account = factory.createAccount(salt);
        vm.assertEq(account, factory.getAddress(salt), "counterfactual address");
        vm.assertEq(SoladyAccount(payable(account)).owner(), accountOwner, "account owner");
        mintTo(account, 1_000e6);
        // A non-zero gas price as on a real chain: solady's off-chain-only ERC-1271 path stays off.
        vm.txGasPrice(1 gwei);
    }

    function test_smartWalletPaysGaslessly_splitAsPayOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(77_777_777);
        AuthUtils.Authorization memory a = authFor(account, o);
        bytes memory authSig = AuthUtils.signNested(OWNER_KEY, account, fiat, a);
        uint256 accountBefore = fbal(account);

        uint256 snap = vm.snapshotState();
        vm.prank(account);
        fiat.approve(address(router), o.amount);
        bytes memory sig = sign(o);
        vm.prank(account);
        router.payOrder(o, sig);
        uint256[4] memory classic = [fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router))];
        vm.revertToState(snap);

        relay(o, a, authSig);
        vm.assertEq(accountBefore - fbal(account), o.amount, "account debited the amount");
        vm.assertEq(fbal(treasury), classic[0], "service fee as payOrder");
        vm.assertEq(fbal(platform), classic[1], "platform fee as payOrder");
        vm.assertEq(fbal(merchant), classic[2], "merchant share as payOrder");
        vm.assertEq(fbal(address(router)), classic[3], "reserve as payOrder");
        vm.assertEq(router.orders(o.orderId).payer, account, "the account is the recorded payer");
        vm.assertTrue(fiat.authorizationState(account, a.nonce), "nonce burnt");
    }

    function test_smartWallet_refusesSignatureNotFromItsOwner() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(account, o);
        uint256 before = fbal(account);
        // Someone else's key, in the account's nested format.
        expectRelayRevert(
            bytes("FiatTokenV2: invalid signature"), o, a, AuthUtils.signNested(OTHER_KEY, account, fiat, a)
        );
        // The owner's plain ECDSA signature over the token digest: solady refuses it (it is not bound to this
        // account, so it could be replayed across accounts of the same owner).
        expectRelayRevert(
            bytes("FiatTokenV2: invalid signature"), o, a, SigUtils.sign(OWNER_KEY, AuthUtils.digest(fiat, a))
        );
        // The owner's nested signature for another amount.
        AuthUtils.Authorization memory less = a;
        less.value = o.amount - 1;
        expectRelayRevert(
            bytes("FiatTokenV2: invalid signature"), o, a, AuthUtils.signNested(OWNER_KEY, account, fiat, less)
        );
        vm.assertEq(fbal(account), before, "nothing moved");
        vm.assertFalse(router.orders(o.orderId).paid, "unpaid");
    }

    function test_smartWallet_payerLock() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        o.payer = account;
        AuthUtils.Authorization memory a = authFor(account, o);
        relay(o, a, AuthUtils.signNested(OWNER_KEY, account, fiat, a));
        vm.assertEq(router.orders(o.orderId).payer, account, "locked payer paid");
    }
}
