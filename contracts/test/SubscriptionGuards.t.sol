// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ERC4337Factory} from "solady/accounts/ERC4337Factory.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {ISubscriptionManager} from "../src/ISubscriptionManager.sol";
import {SubscriptionManager} from "../src/SubscriptionManager.sol";
import {SoladyAccount} from "./mocks/SoladyAccount.sol";
import {SubscriptionTestBase} from "./utils/SubscriptionTestBase.sol";

/// @notice Who may charge and revoke, and what a stolen key cannot do: revocation by the payer or the operator,
///         the operator read from the router, signatures by other keys and tampered fields, an ERC-1271 wallet,
///         the router's pause and the module registry.
contract SubscriptionGuardsTest is SubscriptionTestBase {
    function test_payerRevokes_noChargeAfter() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 hash = manager.hashPermission(p);
        chargeAs(operator, p, sig, p.amount);
        vm.expectRevert(abi.encodeWithSelector(ISubscriptionManager.NotPayer.selector, operator, payer));
        vm.prank(operator);
        manager.revoke(p);
        vm.recordLogs();
        vm.prank(payer);
        manager.revoke(p);
        vm.assertEq(countLogs(address(manager), ISubscriptionManager.PermissionRevoked.selector), 1, "event");
        vm.assertTrue(manager.revoked(hash), "revoked");
        vm.warp(block.timestamp + MONTH);
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.Revoked.selector, hash), p, sig, 1);
    }

    function test_operatorRevokes_noChargeAfter() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 hash = manager.hashPermission(p);
        vm.expectRevert(abi.encodeWithSelector(ISubscriptionManager.NotOperator.selector, payer));
        vm.prank(payer);
        manager.revokeAsOperator(hash);
        vm.prank(operator);
        manager.revokeAsOperator(hash);
        expectChargeRevert(abi.encodeWithSelector(ISubscriptionManager.Revoked.selector, hash), p, sig, 1);
    }

    function test_onlyTheRoutersOperatorCharges_rotationFollowsTheRouter() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        bytes32 orderId = nextOrderId();
        for (uint256 i; i < 3; ++i) {
            address caller = [payer, merchant, owner][i];
            vm.expectRevert(abi.encodeWithSelector(ISubscriptionManager.NotOperator.selector, caller));
            vm.prank(caller);
            manager.charge(p, sig, orderId, 1);
        }
        address next = makeAddr("next operator");
        vm.prank(owner);
        router.setOperator(next);
        vm.expectRevert(abi.encodeWithSelector(ISubscriptionManager.NotOperator.selector, operator));
        vm.prank(operator);
        manager.charge(p, sig, orderId, 1);
        chargeAs(next, p, sig, 1);
    }

    /// The service's signer key (or any key but the payer's) cannot make a permission the manager accepts.
    function test_permissionSignedByAnotherKey_reverts() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory bad = abi.encodeWithSelector(ISubscriptionManager.InvalidPayerSignature.selector, payer);
        expectChargeRevert(bad, p, signPermission(SIGNER_KEY, p), 1);
        expectChargeRevert(bad, p, signPermission(OTHER_KEY, p), 1);
        expectChargeRevert(bad, p, "", 1);
        // The signer key's own permission, naming the payer's address, is still not the payer's.
        p.payer = signer;
        bytes memory signers = signPermission(SIGNER_KEY, p);
        p.payer = payer;
        expectChargeRevert(bad, p, signers, 1);
    }

    /// Every signed field is covered: change any one and the payer's signature no longer matches.
    function test_tamperedFields_revert() public {
        ISubscriptionManager.SpendPermission memory signed = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, signed);
        bytes memory bad = abi.encodeWithSelector(ISubscriptionManager.InvalidPayerSignature.selector, payer);
        for (uint256 field; field < 11; ++field) {
            ISubscriptionManager.SpendPermission memory p = monthly(payer);
            if (field == 0) p.token = address(usdc);
            if (field == 1) p.merchant = makeAddr("thief");
            if (field == 2) p.platform = makeAddr("thief");
            if (field == 3) p.amount = signed.amount + 1;
            if (field == 4) p.period = signed.period - 1;
            if (field == 5) p.start = signed.start - 1;
            if (field == 6) p.end = signed.end + 1;
            if (field == 7) p.serviceFeeBps = signed.serviceFeeBps + 1;
            if (field == 8) p.platformFeeBps = signed.platformFeeBps + 1;
            if (field == 9) p.reserveBps = signed.reserveBps - 1;
            if (field == 10) p.salt = uint256(keccak256("sub_other"));
            expectChargeRevert(bad, p, sig, 1);
        }
        chargeAs(operator, signed, sig, 1);
    }

    function test_malformedPermission_reverts() public {
        for (uint256 i; i < 3; ++i) {
            ISubscriptionManager.SpendPermission memory p = monthly(payer);
            if (i == 0) p.period = 0;
            if (i == 1) (p.serviceFeeBps, p.platformFeeBps) = (5001, 5000);
            if (i == 2) p.reserveBps = 10_001;
            bytes memory reason =
                abi.encodeWithSelector(ISubscriptionManager.InvalidPermission.selector, manager.hashPermission(p));
            expectChargeRevert(reason, p, signPermission(PAYER_KEY, p), 1);
        }
    }

    function test_erc1271Subscriber() public {
        uint256 ownerKey = 0x5AFE;
        ERC4337Factory factory = new ERC4337Factory(address(new SoladyAccount()));
        address account = factory.createAccount(bytes32(uint256(uint160(vm.addr(ownerKey))) << 96));
        mintTo(account, 1_000e6);
        vm.prank(account);
        fiat.approve(address(manager), type(uint256).max);
        vm.txGasPrice(1 gwei); // as on a real chain: solady's off-chain-only ERC-1271 path stays off
        ISubscriptionManager.SpendPermission memory p = monthly(account);
        expectChargeRevert(
            abi.encodeWithSelector(ISubscriptionManager.InvalidPayerSignature.selector, account),
            p,
            signNestedPermission(OTHER_KEY, account, p),
            p.amount
        );
        bytes32 orderId = chargeAs(operator, p, signNestedPermission(ownerKey, account, p), p.amount);
        vm.assertEq(router.orders(orderId).payer, account, "the wallet is the payer");
        vm.assertEq(fbal(account), 1_000e6 - p.amount, "wallet debited");
        vm.prank(account);
        manager.revoke(p);
        vm.assertTrue(manager.revoked(manager.hashPermission(p)), "the wallet revoked");
    }

    function test_routerPaused_refusesCharges() public {
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes memory sig = signPermission(PAYER_KEY, p);
        vm.prank(owner);
        router.pause();
        expectChargeRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector), p, sig, 1);
        // Revocation does not depend on the router.
        vm.prank(owner);
        router.unpause();
        chargeAs(operator, p, sig, 1);
    }

    function test_moduleNotRegistered_reverts() public {
        SubscriptionManager other = new SubscriptionManager(router);
        vm.prank(payer);
        fiat.approve(address(other), type(uint256).max);
        ISubscriptionManager.SpendPermission memory p = monthly(payer);
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", other.DOMAIN_SEPARATOR(), structHash(p)));
        bytes memory sig = _sig(PAYER_KEY, digest);
        bytes32 orderId = nextOrderId();
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotModule.selector, address(other)));
        vm.prank(operator);
        other.charge(p, sig, orderId, 1);
        // Deregistering the live manager stops it too.
        vm.prank(owner);
        router.setModule(address(manager), false);
        vm.assertFalse(router.isModule(address(manager)), "removed");
        expectChargeRevert(
            abi.encodeWithSelector(IPaymentRouter.NotModule.selector, address(manager)),
            p,
            signPermission(PAYER_KEY, p),
            1
        );
    }

    function test_setModule_ownerOnly() public {
        address[3] memory callers = [operator, signer, payer];
        for (uint256 i; i < 3; ++i) {
            vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, callers[i]));
            vm.prank(callers[i]);
            router.setModule(callers[i], true);
        }
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.ZeroAddress.selector));
        vm.prank(owner);
        router.setModule(address(0), true);
        vm.recordLogs();
        vm.prank(owner);
        router.setModule(address(this), true);
        vm.assertEq(countLogs(address(router), IPaymentRouter.ModuleUpdated.selector), 1, "ModuleUpdated");
        vm.assertTrue(router.isModule(address(this)), "registered");
    }

    /// The hook itself: only a module; an authorization, a paid or cancelled order id, a stranger's call refused.
    function test_payFromModule_checksTheOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        o.deadline = block.timestamp;
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotModule.selector, payer));
        vm.prank(payer);
        router.payFromModule(o, payer);
        vm.prank(owner);
        router.setModule(address(this), true);
        mintTo(address(this), 100e6);
        fiat.approve(address(router), type(uint256).max);
        o.captureDeadline = block.timestamp + 1 days;
        vm.expectRevert(
            abi.encodeWithSelector(IPaymentRouter.CaptureDeadlineInvalid.selector, o.captureDeadline, block.timestamp)
        );
        router.payFromModule(o, payer);
        o.captureDeadline = 0;
        o.payer = payer;
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, payer, merchant));
        router.payFromModule(o, merchant);
        router.payFromModule(o, payer);
        vm.assertEq(router.orders(o.orderId).payer, payer, "recorded payer");
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        router.payFromModule(o, payer);
        bytes32[] memory ids = ids1(keccak256("ord_cancelled"));
        vm.prank(operator);
        router.cancelOrders(ids);
        o.orderId = ids[0];
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId));
        router.payFromModule(o, payer);
        vm.warp(block.timestamp + 1);
        o.orderId = keccak256("ord_late");
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, block.timestamp));
        router.payFromModule(o, payer);
    }

    function _sig(uint256 key, bytes32 digest) private pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }
}
