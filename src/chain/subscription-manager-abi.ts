import { parseAbi } from 'viem';

/**
 * The SubscriptionManager's interface as docs/contracts.md and NEXT-CONTRACTS B fix it (the contract ships
 * with the router's artifacts; this fragment is what the service calls and indexes).
 */
const PERMISSION = '(address payer, address token, address merchant, address platform, uint160 amount, uint32 period, uint48 start, uint48 end, uint16 serviceFeeBps, uint16 platformFeeBps, uint16 reserveBps, uint256 salt)';

export const subscriptionManagerAbi = parseAbi([
  `function charge(${PERMISSION} p, bytes payerSignature, bytes32 orderId, uint256 amount)`,
  `function chargeWithPermit(${PERMISSION} p, bytes payerSignature, bytes32 orderId, uint256 amount, uint256 permitValue, uint256 permitDeadline, uint8 v, bytes32 r, bytes32 s)`,
  `function revoke(${PERMISSION} p)`,
  'function revokeAsOperator(bytes32 permissionHash)',
  `function hashPermission(${PERMISSION} p) view returns (bytes32)`,
  'function revoked(bytes32 permissionHash) view returns (bool)',
  'function charged(bytes32 permissionHash, uint256 periodIndex) view returns (bool)',
  'event Charged(bytes32 indexed permissionHash, bytes32 indexed orderId, uint256 periodIndex, uint256 amount)',
  'event PermissionRevoked(bytes32 indexed permissionHash, address indexed payer, address by)',
]);
