// The lines `demo --keep` prints once everything is Ready: the handful of commands a newcomer
// wants next, each ready to paste; and the lines it prints when Ctrl-C ends it: what is left
// running (or that nothing is), and how to clean up.
export interface KeepBannerContext {
  kubeconfig: string;
  /** --context, when the user named one. */
  context?: string;
  namespace: string;
  /** An AgentDeployment of the examples, to describe and edit. */
  name: string;
  /** The manifest of that object as the demo last applied it (with its update): to edit and re-apply. */
  manifestFile: string;
  /** The example's own file under examples/, which still names the version before the update. */
  exampleFile: string;
  /** What the demo's update changed on `name`, e.g. from "imageUri …:1.0.0" to "imageUri …:demo-update". */
  rolledOut?: { name: string; from: string; to: string };
  /** An AgentDeployment that deploys through a PlatformConnection (invoke uses that connection's key). */
  connectionAgent?: string;
  controlPlaneUrl: string;
  apiKeyHint: string;
  /** The embedded control-plane emulator's admin token; absent with a real control plane. */
  adminToken: string | undefined;
  metricsUrl: string | undefined;
  logPath: string | undefined;
}

/** `--kubeconfig <path> [--context <name>]`, as kubectl and agent-operator both take them. */
function kubeFlags(kubeconfig: string, context: string | undefined): string {
  return `--kubeconfig ${kubeconfig}${context === undefined ? '' : ` --context ${context}`}`;
}

export function keepBanner(context: KeepBannerContext): string[] {
  const flags = kubeFlags(context.kubeconfig, context.context);
  const kubectl = `kubectl ${flags}`;
  const object = `-n ${context.namespace} agd/${context.name}`;
  const rolledOut = context.rolledOut;
  return [
    '  watch every AgentDeployment:',
    `    ${kubectl} get agd -A -w`,
    '  conditions, ids and events of one:',
    `    ${kubectl} describe ${object}`,
    '  wait until all are Ready (what a pipeline does):',
    `    ${kubectl} wait agd --all -n ${context.namespace} --for=condition=Ready --timeout=2m`,
    `  roll out a change: edit sourceRevisionConfig in ${context.manifestFile} (${context.name} as the demo applied it), then`,
    `    ${kubectl} apply -f ${context.manifestFile}    # "unchanged" until you edit it; watch the rollout with get -w`,
    ...(rolledOut === undefined || context.manifestFile === context.exampleFile
      ? []
      : [
          `    (${context.exampleFile} still says ${rolledOut.from}: applying it as it is rolls ${rolledOut.name} back from ${rolledOut.to})`,
        ]),
    '  talk to the deployed agent (the emulated runtime answers with the revision it runs):',
    `    AGENT_OPERATOR_API_KEY=${context.apiKeyHint} npx agent-operator invoke --control-plane-url ${context.controlPlaneUrl} ${flags} -n ${context.namespace} ${context.name} "hello"`,
    ...(context.connectionAgent === undefined
      ? []
      : [
          `  and the one on a PlatformConnection (invoke reads that connection's key with your kubeconfig):`,
          `    npx agent-operator invoke ${flags} -n ${context.namespace} ${context.connectionAgent} "hello"`,
        ]),
    "  the operator's metrics:",
    `    curl -s ${context.metricsUrl ?? '-'}/metrics | grep '^agent_operator_'`,
    `  control plane: ${context.controlPlaneUrl} (API key "${context.apiKeyHint}")`,
    ...(context.adminToken === undefined
      ? []
      : [
          `  admin API:     ${context.controlPlaneUrl}/_emulator/ (Authorization: Bearer ${context.adminToken})`,
        ]),
    `  operator log:  ${context.logPath ?? '-'}`,
  ];
}

export interface StoppedContext {
  embeddedKube: boolean;
  embeddedControlPlane: boolean;
  controlPlaneUrl: string;
  kubeconfig: string;
  context?: string;
  /** What --keep left in a real cluster (the footprint's description). */
  leftInCluster?: string;
  /** The demo's temp folder, when it was removed. */
  removedStateDir?: string;
}

/** What Ctrl-C on `demo --keep` stopped, what it left, and how to remove what is left. */
export function stoppedLines(context: StoppedContext): string[] {
  const emulators = [
    ...(context.embeddedKube ? ['the Kubernetes API emulator'] : []),
    ...(context.embeddedControlPlane ? ['the control-plane emulators'] : []),
  ];
  const lines = [
    emulators.length === 0
      ? '  stopped the operator'
      : `  stopped the operator and ${emulators.join(' and ')}: they ran in this process and held their state in memory, so none of it is left running`,
  ];
  if (context.leftInCluster !== undefined) {
    lines.push(
      `  left in the cluster of ${context.kubeconfig}: ${context.leftInCluster}, with no operator watching it (the AgentDeployments keep their finalizers until one does)`,
      `  to remove it: npx agent-operator demo ${kubeFlags(context.kubeconfig, context.context)}   # empties it through its own operator first, and removes everything at the end`,
    );
  }
  if (!context.embeddedControlPlane) {
    lines.push(
      context.embeddedKube
        ? `  the deployments the demo created on ${context.controlPlaneUrl} are still there, and the emulated cluster that managed them is gone: delete them in that control plane`
        : `  the deployments the demo created on ${context.controlPlaneUrl} are still there: the next demo run deletes them with their AgentDeployments`,
    );
  }
  if (context.removedStateDir !== undefined) {
    lines.push(`  removed ${context.removedStateDir} (kubeconfig, operator log, the updated manifest)`);
  } else if (context.embeddedKube && context.embeddedControlPlane) {
    lines.push('  nothing to clean up');
  }
  return lines;
}
