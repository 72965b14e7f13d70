package lsp

import (
	"context"
	"fmt"
)

// Call and type hierarchies: a prepare request finds the item at a
// position; follow-up requests go to the server of the item's own file.

// PrepareCallHierarchy returns the function or method at pos.
func (m *Manager) PrepareCallHierarchy(ctx context.Context, path string, pos Position) ([]CallHierarchyItem, error) {
	c, d, err := m.prepare(ctx, path, func(c serverCapabilities) provider { return c.CallHierarchyProvider }, "call hierarchy")
	if err != nil {
		return nil, err
	}
	var items []CallHierarchyItem
	if err := c.call(ctx, "textDocument/prepareCallHierarchy", positionParams(d, pos), &items); err != nil {
		return nil, err
	}
	return items, nil
}

// IncomingCalls returns the callers of item.
func (m *Manager) IncomingCalls(ctx context.Context, item CallHierarchyItem) ([]CallHierarchyIncomingCall, error) {
	c, err := m.itemClient(ctx, item.URI)
	if err != nil {
		return nil, err
	}
	var calls []CallHierarchyIncomingCall
	if err := c.call(ctx, "callHierarchy/incomingCalls", callHierarchyItemParams{Item: item}, &calls); err != nil {
		return nil, err
	}
	return calls, nil
}

// OutgoingCalls returns what item calls.
func (m *Manager) OutgoingCalls(ctx context.Context, item CallHierarchyItem) ([]CallHierarchyOutgoingCall, error) {
	c, err := m.itemClient(ctx, item.URI)
	if err != nil {
		return nil, err
	}
	var calls []CallHierarchyOutgoingCall
	if err := c.call(ctx, "callHierarchy/outgoingCalls", callHierarchyItemParams{Item: item}, &calls); err != nil {
		return nil, err
	}
	return calls, nil
}

// PrepareTypeHierarchy returns the type at pos.
func (m *Manager) PrepareTypeHierarchy(ctx context.Context, path string, pos Position) ([]TypeHierarchyItem, error) {
	c, d, err := m.prepare(ctx, path, func(c serverCapabilities) provider { return c.TypeHierarchyProvider }, "type hierarchy")
	if err != nil {
		return nil, err
	}
	var items []TypeHierarchyItem
	if err := c.call(ctx, "textDocument/prepareTypeHierarchy", positionParams(d, pos), &items); err != nil {
		return nil, err
	}
	return items, nil
}

// Supertypes returns the types item extends or implements.
func (m *Manager) Supertypes(ctx context.Context, item TypeHierarchyItem) ([]TypeHierarchyItem, error) {
	return m.typeHierarchy(ctx, "typeHierarchy/supertypes", item)
}

// Subtypes returns the types that extend or implement item.
func (m *Manager) Subtypes(ctx context.Context, item TypeHierarchyItem) ([]TypeHierarchyItem, error) {
	return m.typeHierarchy(ctx, "typeHierarchy/subtypes", item)
}

func (m *Manager) typeHierarchy(ctx context.Context, method string, item TypeHierarchyItem) ([]TypeHierarchyItem, error) {
	c, err := m.itemClient(ctx, item.URI)
	if err != nil {
		return nil, err
	}
	var items []TypeHierarchyItem
	if err := c.call(ctx, method, typeHierarchyItemParams{Item: item}, &items); err != nil {
		return nil, err
	}
	return items, nil
}

// itemClient finds the server for an item's file: the server that made the
// item (items carry server data only that server understands).
func (m *Manager) itemClient(ctx context.Context, uri DocumentURI) (*client, error) {
	path, err := uri.Path()
	if err != nil {
		return nil, fmt.Errorf("hierarchy item: %w", err)
	}
	c, _, err := m.clientForPath(ctx, path)
	return c, err
}
