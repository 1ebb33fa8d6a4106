// The control plane's 404 for a deployment id it does not hold (or that another tenant holds).
import { detailError, type HttpError } from '../http/http-error.js';

export function deploymentNotFound(deploymentId: string): HttpError {
  return detailError(404, `Deployment ID ${deploymentId} not found.`);
}
