// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {ISubscriptionManager} from "../../src/ISubscriptionManager.sol";
import {SubscriptionManager} from "../../src/SubscriptionManager.sol";
import {GaslessTestBase} from "./GaslessTestBase.sol";
import {SigUtils} from "./SigUtils.sol";

/// @notice GaslessTestBase (router + Circle's USDC, a funded payer) plus a SubscriptionManager registered as the
///         router's module, the payer's allowance to the manager, and helpers that build and sign spend
///         permissions the way the service and the payer's wallet do.
abstract contract SubscriptionTestBase is GaslessTestBase {
    string internal constant PERMISSION_TYPE = "SpendPermission(address payer,address token,address merchant,"
        "address platform,uint160 amount,uint32 period,uint48 start,uint48 end,uint16 serviceFeeBps,"
        "uint16 platformFeeBps,uint16 reserveBps,uint256 salt)";
    uint32 internal constant MONTH = 30 days;

    SubscriptionManager internal manager;
    uint256 private _orders;

    function setUp() public virtual override {
        super.setUp();
        manager = new SubscriptionManager(router);
        vm.prank(owner);
        router.setModule(address(manager), true);
        vm.prank(payer);
        fiat.approve(address(manager), type(uint256).max);
    }

    /// @dev 100 USDC a month from now for 12 months; 1% service, 5% platform, 10% reserve of the gross.
    function monthly(address who) internal view returns (ISubscriptionManager.SpendPermission memory) {
        return ISubscriptionManager.SpendPermission({
            payer: who,
            token: address(fiat),
            merchant: merchant,
            platform: platform,
            amount: 100e6,
            period: MONTH,
            start: uint48(block.timestamp),
            end: uint48(block.timestamp + 12 * uint256(MONTH)),
            serviceFeeBps: 100,
            platformFeeBps: 500,
            reserveBps: 1000,
            salt: uint256(keccak256("sub_test"))
        });
    }

    /// @dev The EIP-712 digest rebuilt from the type string and the manager's domain, independent of the contract.
    function permissionDigest(ISubscriptionManager.SpendPermission memory p) internal view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                SigUtils.DOMAIN_TYPEHASH,
                keccak256("Trisettle Subscriptions"),
                keccak256("1"),
                block.chainid,
                address(manager)
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash(p)));
    }

    function structHash(ISubscriptionManager.SpendPermission memory p) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256(bytes(PERMISSION_TYPE)),
                p.payer,
                p.token,
                p.merchant,
                p.platform,
                p.amount,
                p.period,
                p.start,
                p.end,
                p.serviceFeeBps,
                p.platformFeeBps,
                p.reserveBps,
                p.salt
            )
        );
    }

    function signPermission(uint256 key, ISubscriptionManager.SpendPermission memory p)
        internal
        view
        returns (bytes memory)
    {
        return SigUtils.sign(key, permissionDigest(p));
    }

    /// @dev What solady's ERC-7739 account accepts from its owner for `p` (nested TypedDataSign, as a wallet does).
    function signNestedPermission(uint256 ownerKey, address account, ISubscriptionManager.SpendPermission memory p)
        internal
        view
        returns (bytes memory)
    {
        bytes32 appDomain = keccak256(
            abi.encode(
                SigUtils.DOMAIN_TYPEHASH,
                keccak256("Trisettle Subscriptions"),
                keccak256("1"),
                block.chainid,
                address(manager)
            )
        );
        bytes32 contents = structHash(p);
        (, string memory name, string memory version, uint256 chainId, address verifying, bytes32 salt,) =
            IERC5267(account).eip712Domain();
        bytes32 typehash = keccak256(
            abi.encodePacked(
                "TypedDataSign(SpendPermission contents,string name,string version,uint256 chainId,",
                "address verifyingContract,bytes32 salt)",
                PERMISSION_TYPE
            )
        );
        bytes32 wrapped = keccak256(
            abi.encode(
                typehash, contents, keccak256(bytes(name)), keccak256(bytes(version)), chainId, verifying, salt
            )
        );
        bytes memory ownerSig = SigUtils.sign(ownerKey, keccak256(abi.encodePacked("\x19\x01", appDomain, wrapped)));
        return abi.encodePacked(ownerSig, appDomain, contents, PERMISSION_TYPE, uint16(bytes(PERMISSION_TYPE).length));
    }

    function nextOrderId() internal returns (bytes32) {
        return keccak256(abi.encodePacked("ord_sub_", ++_orders));
    }

    /// @dev The operator charges `amount` under `p` signed as `sig`; returns the order id.
    function chargeAs(
        address caller,
        ISubscriptionManager.SpendPermission memory p,
        bytes memory sig,
        uint256 amount
    ) internal returns (bytes32 orderId) {
        orderId = nextOrderId();
        vm.prank(caller);
        manager.charge(p, sig, orderId, amount);
    }

    function expectChargeRevert(
        bytes memory reason,
        ISubscriptionManager.SpendPermission memory p,
        bytes memory sig,
        uint256 amount
    ) internal {
        bytes32 orderId = nextOrderId();
        vm.prank(operator);
        vm.expectRevert(reason);
        manager.charge(p, sig, orderId, amount);
    }

    /// @dev The service's split of a charge (floors), as the manager must compute it.
    function expectedSplit(ISubscriptionManager.SpendPermission memory p, uint256 amount)
        internal
        pure
        returns (uint256 s, uint256 pf, uint256 r)
    {
        s = amount * p.serviceFeeBps / 10_000;
        pf = amount * p.platformFeeBps / 10_000;
        r = (amount - s - pf) * p.reserveBps / 10_000;
    }
}
