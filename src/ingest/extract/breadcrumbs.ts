import { isObject, resolveRef, type SchemaNode } from './json-ld.js';
import { asList, nodeName, textValue, typesOf } from './schema-values.js';

/** Crumbs read at most: a hostile trail of ten thousand stays bounded. */
const MAX_CRUMBS = 20;

/**
 * The page's place in its website as its breadcrumb trail states it, the names from the root
 * down ("Blog", "Insights", ...): the first trail among `nodes` (a schema.org BreadcrumbList, its
 * ListItems in position order, or a data-vocabulary.org Breadcrumb and its chain of `child`),
 * references followed through `byId`. Empty when no node is a trail or a trail names nothing.
 */
export function breadcrumbTrail(nodes: readonly unknown[], byId: Map<string, SchemaNode>): string[] {
  for (const raw of nodes) {
    const node = resolveRef(raw, byId);
    if (!isObject(node)) continue;
    const types = typesOf(node);
    const trail = types.includes('BreadcrumbList')
      ? listTrail(node, byId)
      : types.includes('Breadcrumb')
        ? chainTrail(node, byId)
        : [];
    if (trail.length > 0) return trail;
  }
  return [];
}

function listTrail(list: SchemaNode, byId: Map<string, SchemaNode>): string[] {
  const crumbs = asList(list.itemListElement)
    .slice(0, MAX_CRUMBS)
    .map((raw, index) => {
      const item = resolveRef(raw, byId);
      if (!isObject(item)) return { position: index, name: textValue(item) };
      const target = resolveRef(item.item, byId);
      const position = Number(textValue(item.position));
      return {
        position: Number.isFinite(position) ? position : index,
        name: textValue(item.name) ?? (isObject(target) ? nodeName(target) : null),
      };
    });
  // Array.prototype.sort is stable: crumbs of one position keep the page's order.
  return crumbs
    .sort((a, b) => a.position - b.position)
    .map((c) => c.name)
    .filter((name): name is string => name !== null);
}

/**
 * data-vocabulary.org's Breadcrumb: a title, and the crumbs below it in `child`, nested (each
 * crumb the child of the one before) or side by side (every crumb a child of the first), read
 * depth first.
 */
function chainTrail(first: SchemaNode, byId: Map<string, SchemaNode>): string[] {
  const names: string[] = [];
  const stack: unknown[] = [first];
  for (let read = 0; stack.length > 0 && read < MAX_CRUMBS; read++) {
    const crumb = resolveRef(stack.pop(), byId);
    if (!isObject(crumb)) continue;
    const name = textValue(crumb.title) ?? textValue(crumb.name);
    if (name !== null) names.push(name);
    stack.push(...asList(crumb.child).slice(0, MAX_CRUMBS).reverse());
  }
  return names;
}
