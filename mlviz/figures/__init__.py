"""Plotly figure builders: pure functions, data in, ``go.Figure`` out (no Streamlit).

One module per dashboard view; pages import from here and only display the result.
"""
