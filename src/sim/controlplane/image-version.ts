// A Deployment's `image_version` ("Image version of the deployment"): the version of the image
// its active revision runs, read from that revision's `image_uri` as a container runtime reads
// an image reference: the digest when one is pinned (`@sha256:...`, it wins over a tag), else the
// tag after the last path segment's colon (a registry port is not a tag), else `latest`, the
// tag a runtime pulls when none is given. A repository source has no `image_uri` (the spec does
// not name the image it builds), so its version is null, as it is before any revision deploys.

export function imageVersionOf(imageUri: string | null | undefined): string | null {
  if (imageUri == null || imageUri === '') return null;
  const at = imageUri.indexOf('@');
  if (at >= 0) return imageUri.slice(at + 1);
  const lastSegment = imageUri.slice(imageUri.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  return colon >= 0 ? lastSegment.slice(colon + 1) : 'latest';
}
